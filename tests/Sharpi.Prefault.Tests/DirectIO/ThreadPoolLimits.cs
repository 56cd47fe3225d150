namespace Sharpi.Prefault.Tests.DirectIO;

/// <summary>
/// Tests that lower the thread pool's limits or occupy its threads join this collection: it runs alone, so no other
/// test waits on a pool they starved. ThreadPool.SetMaxThreads is process-wide.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ThreadPoolLimits
{
    public const string Name = "Thread pool limits";
}

/// <summary>
/// Limits the thread pool so that only a given number of its worker threads are free (the test host keeps some of
/// them blocked for the whole run, so the limit is found by probing), and restores the limits on dispose.
/// </summary>
internal sealed class ThreadPoolLimitScope : IDisposable
{
    private readonly int _maxWorkers;
    private readonly int _maxIo;
    private readonly int _minWorkers;
    private readonly int _minIo;

    public ThreadPoolLimitScope(int freeThreads)
    {
        ThreadPool.GetMaxThreads(out _maxWorkers, out _maxIo);
        ThreadPool.GetMinThreads(out _minWorkers, out _minIo);
        int limit = Math.Max(Environment.ProcessorCount, _minWorkers);
        for (int attempt = 0; attempt < 4; attempt++)
        {
            // Min = max: the pool starts threads up to the limit at once, without its starvation delay.
            Assert.True(ThreadPool.SetMaxThreads(limit, _maxIo), $"SetMaxThreads({limit}) was refused");
            Assert.True(ThreadPool.SetMinThreads(limit, _minIo), $"SetMinThreads({limit}) was refused");
            int free;
            using (var probe = PoolBlockers.OccupyFreeThreads())
            {
                free = probe.Started;
            }

            if (free == freeThreads)
            {
                return;
            }

            limit += freeThreads - free;
        }

        Dispose();
        Assert.Fail($"could not limit the thread pool to {freeThreads} free threads");
    }

    public void Dispose()
    {
        ThreadPool.SetMaxThreads(_maxWorkers, _maxIo);
        ThreadPool.SetMinThreads(_minWorkers, _minIo);
    }
}

/// <summary>
/// Work items that block every free thread-pool worker thread until disposed, with one more left waiting in the queue
/// to prove the pool full. Dispose releases them and waits for the started ones to return their threads.
/// </summary>
internal sealed class PoolBlockers : IDisposable
{
    /// <summary>How long a queued work item may wait before the pool counts as full.</summary>
    private static readonly TimeSpan Settle = TimeSpan.FromSeconds(1);

    private readonly ManualResetEventSlim _release = new();
    private int _started;
    private int _running;

    private PoolBlockers()
    {
    }

    /// <summary>How many work items started, that is, how many pool threads were free.</summary>
    public int Started => Volatile.Read(ref _started);

    public static PoolBlockers OccupyFreeThreads()
    {
        var blockers = new PoolBlockers();
        for (int queued = 1; ; queued++)
        {
            ThreadPool.UnsafeQueueUserWorkItem(static state =>
            {
                var self = (PoolBlockers)state!;
                Interlocked.Increment(ref self._running);
                Interlocked.Increment(ref self._started);
                self._release.Wait();
                Interlocked.Decrement(ref self._running);
            }, blockers);

            if (!SpinWait.SpinUntil(() => blockers.Started == queued, Settle))
            {
                return blockers;
            }
        }
    }

    public void Dispose()
    {
        _release.Set();
        Assert.True(SpinWait.SpinUntil(() => Volatile.Read(ref _running) == 0, TimeSpan.FromSeconds(30)), "blocked pool threads did not return");

        // The event stays undisposed: the work item still queued sets nothing but may yet wait on it, and returns at once.
    }
}
