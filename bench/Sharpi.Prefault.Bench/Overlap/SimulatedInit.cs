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
    internal double Run()
    {
        long started = Stopwatch.GetTimestamp();
        _sideFile?.ReadWhole(ReadSize);

        var helpers = new Thread[Threads - 1];
        for (int i = 0; i < helpers.Length; i++)
        {
            helpers[i] = new Thread(() => Spin(_iterations)) { IsBackground = true, Name = "simulated init" };
            helpers[i].Start();
        }

        Spin(_iterations);
        foreach (Thread helper in helpers)
        {
            helper.Join();
        }

        return Stopwatch.GetElapsedTime(started).TotalSeconds;
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
