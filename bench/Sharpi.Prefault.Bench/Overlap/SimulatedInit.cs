using System.Diagnostics;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// An engine's init work (graph building, tokenizer, KV-cache setup) as a fixed amount of busy CPU work on one
/// thread, calibrated once to take the asked time on an idle process, so a prefault that competes for the cores
/// stretches it the way it would stretch a real init; optionally preceded by reading a cold side file whole (the
/// tokenizer, a vocabulary, a second model), so a prefault that competes for the disk stretches it too.
/// </summary>
internal sealed class SimulatedInit
{
    private const int ReadSize = 1024 * 1024;

    private static long s_sink;
    private readonly long _iterations;
    private readonly WeightsFile? _sideFile;

    private SimulatedInit(long iterations, WeightsFile? sideFile)
    {
        _iterations = iterations;
        _sideFile = sideFile;
    }

    /// <summary>The side file the init reads, or null.</summary>
    internal WeightsFile? SideFile => _sideFile;

    internal static SimulatedInit Calibrate(TimeSpan duration, WeightsFile? sideFile)
    {
        const long Batch = 100_000;
        long iterations = 0;
        long started = Stopwatch.GetTimestamp();
        while (Stopwatch.GetElapsedTime(started) < duration)
        {
            Spin(Batch);
            iterations += Batch;
        }

        return new SimulatedInit(iterations, sideFile);
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

    /// <summary>Runs the work on the calling thread (the side file's reads, then the CPU work); returns its wall time.</summary>
    internal double Run()
    {
        long started = Stopwatch.GetTimestamp();
        _sideFile?.ReadWhole(ReadSize);

        Spin(_iterations);
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
