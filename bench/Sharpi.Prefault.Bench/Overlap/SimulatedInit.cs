using System.Diagnostics;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// An engine's init work (graph building, tokenizer, KV-cache setup) as a fixed amount of busy CPU work on each of
/// <see cref="Threads"/> threads, calibrated once on one thread to take the asked time on an idle process, so a
/// prefault that competes for the cores stretches it the way it would stretch a real init (with as many threads as
/// cores, every core is busy and a background sweep has none to itself); optionally preceded by reading a cold side
/// file whole (the tokenizer, a vocabulary, a second model), so a prefault that competes for the disk stretches it too.
/// </summary>
internal sealed class SimulatedInit
{
    private const int ReadSize = 1024 * 1024;

    private static long s_sink;
    private readonly long _iterations;
    private readonly WeightsFile? _sideFile;

    private SimulatedInit(long iterations, WeightsFile? sideFile, int threads)
    {
        _iterations = iterations;
        _sideFile = sideFile;
        Threads = threads;
    }

    /// <summary>The threads the CPU work runs on at once, each doing the whole calibrated amount.</summary>
    internal int Threads { get; }

    /// <summary>The side file the init reads, or null.</summary>
    internal WeightsFile? SideFile => _sideFile;

    internal static SimulatedInit Calibrate(TimeSpan duration, WeightsFile? sideFile, int threads = 1)
    {
        const long Batch = 100_000;
        long iterations = 0;
        long started = Stopwatch.GetTimestamp();
        while (Stopwatch.GetElapsedTime(started) < duration)
        {
            Spin(Batch);
            iterations += Batch;
        }

        return new SimulatedInit(iterations, sideFile, threads);
    }

    /// <summary>Evicts the side file, so every run of the init reads it from the disk.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    internal void MakeCold()
    {
        if (_sideFile is not null)
        {
            CacheControl.Establish(_sideFile, CacheState.Cold);
        }
    }

    /// <summary>
    /// Runs the work (the side file's reads on the calling thread, then the CPU work on it and <see cref="Threads"/> - 1
    /// more, started here, as an engine's init would); returns its wall time, until the last thread is done.
    /// </summary>
    internal double Run() => Run(out _);

    /// <inheritdoc cref="Run()"/>
    /// <param name="waitedSeconds">
    /// How long the CPU work's threads waited for a core, on average a thread: their time runnable but not running,
    /// from the kernel's <c>/proc/thread-self/schedstat</c> (0 where it is unreadable). It is what other threads cost
    /// the init, the prefault's among them, and unlike the wall time it holds still where the host's CPUs do not.
    /// </param>
    internal double Run(out double waitedSeconds)
    {
        long started = Stopwatch.GetTimestamp();
        _sideFile?.ReadWhole(ReadSize);

        var helpers = new Thread[Threads - 1];
        long waitedNanoseconds = 0;
        for (int i = 0; i < helpers.Length; i++)
        {
            helpers[i] = new Thread(() => Interlocked.Add(ref waitedNanoseconds, SpinCountingWait(_iterations))) { IsBackground = true, Name = "simulated init" };
            helpers[i].Start();
        }

        Interlocked.Add(ref waitedNanoseconds, SpinCountingWait(_iterations));
        foreach (Thread helper in helpers)
        {
            helper.Join();
        }

        double seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
        waitedSeconds = Volatile.Read(ref waitedNanoseconds) / 1e9 / Threads;
        return seconds;
    }

    /// <summary>Spins, and returns the nanoseconds the thread waited on a run queue meanwhile.</summary>
    private static long SpinCountingWait(long iterations)
    {
        long before = RunQueueWaitNanoseconds();
        Spin(iterations);
        return RunQueueWaitNanoseconds() - before;
    }

    /// <summary>The calling thread's time waiting on a run queue so far (the second field of schedstat), 0 where unreadable.</summary>
    private static long RunQueueWaitNanoseconds()
    {
        try
        {
            string[] fields = File.ReadAllText("/proc/thread-self/schedstat").Split(' ');
            return fields.Length >= 2 && long.TryParse(fields[1], System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out long ns) ? ns : 0;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return 0;
        }
    }

    private static void Spin(long iterations)
    {
        ulong x = 0x9E3779B97F4A7C15UL;
        for (long i = 0; i < iterations; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }

        Interlocked.Add(ref s_sink, (long)x);
    }
}
