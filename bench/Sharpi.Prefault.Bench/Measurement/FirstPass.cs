using System.Diagnostics;
using System.Numerics.Tensors;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The "first request": runs a <see cref="RequestPlan"/> over the weights on the first-pass threads, the way a
/// forward pass's worker threads stream them. Within a step (a layer) the chunks go out through one atomic
/// counter, so the threads walk the layer together like an engine's workers splitting each tensor; after each
/// step they meet at a barrier. Compute shapes sum every byte with <see cref="TensorPrimitives.Sum{T}(ReadOnlySpan{T})"/>;
/// <see cref="RequestShape.Pages"/> loads one byte per page. The results fold into <see cref="Checksum"/> so the
/// loads stay observable.
/// </summary>
internal static unsafe class FirstPass
{
    private static long s_checksum;

    /// <summary>The folded bytes of every pass so far (kept so the JIT cannot drop the loads).</summary>
    internal static long Checksum => Volatile.Read(ref s_checksum);

    /// <summary>Runs <paramref name="plan"/> over the weights at <paramref name="start"/>; returns the seconds and the faults it took.</summary>
    internal static (double Seconds, FaultCounts Faults) Run(byte* start, RequestPlan plan, int threads)
    {
        FaultCounts faultsBefore = FaultCounts.Now();
        long started = Stopwatch.GetTimestamp();
        using var work = new Work(start, plan, threads);
        WorkerThreads.Run(threads, "first pass", _ => work.Run());
        double seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
        return (seconds, FaultCounts.Now() - faultsBefore);
    }

    private sealed class Work(byte* start, RequestPlan plan, int threads) : IDisposable
    {
        private readonly long[] _next = [.. Enumerable.Repeat(-1L, plan.Steps.Count)];
        private readonly Barrier? _barrier = threads > 1 ? new Barrier(threads) : null;

        internal void Run()
        {
            nint page = Environment.SystemPageSize;
            bool pagesOnly = plan.TouchesPagesOnly;
            long acc = 0;
            for (int s = 0; s < plan.Steps.Count; s++)
            {
                ByteRange[] chunks = plan.Steps[s];
                for (long i = Interlocked.Increment(ref _next[s]); i < chunks.Length; i = Interlocked.Increment(ref _next[s]))
                {
                    ByteRange chunk = chunks[i];
                    byte* p = start + chunk.Offset;
                    if (pagesOnly)
                    {
                        for (byte* end = p + chunk.Length; p < end; p += page)
                        {
                            acc += *p;
                        }
                    }
                    else
                    {
                        acc += TensorPrimitives.Sum(new ReadOnlySpan<byte>(p, (int)chunk.Length));
                    }
                }

                _barrier?.SignalAndWait();
            }

            Interlocked.Add(ref s_checksum, acc);
        }

        public void Dispose() => _barrier?.Dispose();
    }
}
