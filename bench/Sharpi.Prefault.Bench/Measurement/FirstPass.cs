using System.Diagnostics;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The "first request": reads every page once, on all cores, the way a forward pass's worker threads stream the
/// weights. Chunks go out through one atomic counter, so the threads walk the file together like an engine's
/// workers splitting each tensor. The loaded bytes are folded into <see cref="Checksum"/> so the reads stay observable.
/// </summary>
internal static unsafe class FirstPass
{
    private const long ChunkBytes = 2 * 1024 * 1024;

    private static long s_checksum;

    /// <summary>The folded bytes of every pass so far (kept so the JIT cannot drop the loads).</summary>
    internal static long Checksum => Volatile.Read(ref s_checksum);

    /// <summary>Reads one byte per page of [start, start + length) on <paramref name="threads"/> threads; returns the seconds and the faults it took.</summary>
    internal static (double Seconds, FaultCounts Faults) Run(byte* start, long length, int threads)
    {
        FaultCounts faultsBefore = FaultCounts.Now();
        long started = Stopwatch.GetTimestamp();
        var work = new Work(start, length);
        threads = (int)Math.Clamp((length + ChunkBytes - 1) / ChunkBytes, 1, threads);
        var helpers = new Thread[threads - 1];
        for (int i = 0; i < helpers.Length; i++)
        {
            helpers[i] = new Thread(static state => ((Work)state!).Sweep(), 256 * 1024) { IsBackground = true, Name = "first pass" };
            helpers[i].Start(work);
        }

        work.Sweep();
        foreach (Thread helper in helpers)
        {
            helper.Join();
        }

        double seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
        return (seconds, FaultCounts.Now() - faultsBefore);
    }

    private sealed class Work(byte* start, long length)
    {
        private long _nextChunk = -1;

        internal void Sweep()
        {
            nint page = Environment.SystemPageSize;
            long chunks = (length + ChunkBytes - 1) / ChunkBytes;
            long acc = 0;
            for (long chunk = Interlocked.Increment(ref _nextChunk); chunk < chunks; chunk = Interlocked.Increment(ref _nextChunk))
            {
                byte* p = start + (chunk * ChunkBytes);
                byte* end = start + Math.Min(length, (chunk + 1) * ChunkBytes);
                for (; p < end; p += page)
                {
                    acc += *p;
                }
            }

            Interlocked.Add(ref s_checksum, acc);
        }
    }
}
