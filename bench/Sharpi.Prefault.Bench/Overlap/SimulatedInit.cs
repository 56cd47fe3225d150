using System.Diagnostics;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// An engine's init work (graph building, tokenizer, KV-cache setup) as a fixed amount of busy CPU work on one
/// thread, calibrated once to take the asked time on an idle process, so a prefault that competes for the cores
/// stretches it the way it would stretch a real init.
/// </summary>
internal sealed class SimulatedInit
{
    private static long s_sink;
    private readonly long _iterations;

    private SimulatedInit(long iterations) => _iterations = iterations;

    internal static SimulatedInit Calibrate(TimeSpan duration)
    {
        const long Batch = 100_000;
        long iterations = 0;
        long started = Stopwatch.GetTimestamp();
        while (Stopwatch.GetElapsedTime(started) < duration)
        {
            Spin(Batch);
            iterations += Batch;
        }

        return new SimulatedInit(iterations);
    }

    /// <summary>Runs the work on the calling thread; returns its wall time.</summary>
    internal double Run()
    {
        long started = Stopwatch.GetTimestamp();
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
