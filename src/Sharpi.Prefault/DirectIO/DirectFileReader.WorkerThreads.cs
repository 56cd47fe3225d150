using System.Runtime.CompilerServices;

namespace Sharpi.Prefault;

// The reader's own threads, which run the workers of its reads.
public sealed partial class DirectFileReader
{
    /// <summary>Idle threads all readers may keep (tests bound them by it).</summary>
    internal static int MaxParkedThreads => WorkerThreads.MaxParkedThreads;

    /// <summary>Dedicated threads, one per read in flight at most: workers blocking in pread would starve the pool.</summary>
    private sealed class WorkerThreads
    {
        /// <summary>Idle time before a thread ends.</summary>
        internal static readonly TimeSpan IdleTimeout = TimeSpan.FromSeconds(10);

        /// <summary>Idle threads all readers may keep; more end at once.</summary>
        internal static readonly int MaxParkedThreads = Math.Max(64, 4 * Environment.ProcessorCount);

        private static int s_parked;

        private readonly object _lock = new();
        private int _started;
        private int _claims;
        private ReadJob? _pass;
        private bool _stopping;

        /// <summary>Idle threads of all readers now.</summary>
        internal static int Parked => Volatile.Read(ref s_parked);

        /// <summary>
        /// Has <paramref name="workers"/> threads each run a worker of <paramref name="pass"/>; returns those no thread will
        /// run (all or none), for the caller.
        /// </summary>
        internal int Start(ReadJob pass, int workers)
        {
            if (workers <= 0)
            {
                return 0;
            }

            int missing;
            lock (_lock)
            {
                _pass = pass;
                _claims += workers;
                missing = Math.Max(0, workers - _started);
                _started += missing;
                Monitor.PulseAll(_lock);
            }

            int failed = 0;
            for (int i = 0; i < missing; i++)
            {
                // Not "Sharpi.Prefault ...": Linux cuts names to 15 characters, and that prefix is the sweep's.
                var thread = new Thread(Loop, maxStackSize: 256 * 1024)
                {
                    IsBackground = true,
                    Name = "Sharpi.DirectIO reader",
                };
                try
                {
                    thread.Start();
                }
                catch (OutOfMemoryException)
                {
                    // No thread left (a pids cgroup at pids.max): read on fewer.
                    failed = missing - i;
                    break;
                }
            }

            if (failed == 0)
            {
                return 0;
            }

            lock (_lock)
            {
                _started -= failed;
                if (_started > 0)
                {
                    return 0;
                }

                // Not one thread: the claims go back to the caller.
                _claims -= workers;
                _pass = null;
                return workers;
            }
        }

        /// <summary>Lets every thread end; only between passes.</summary>
        internal void Stop()
        {
            lock (_lock)
            {
                _stopping = true;
                Monitor.PulseAll(_lock);
            }
        }

        private void Loop()
        {
            while (RunNextWorker())
            {
            }
        }

        /// <summary>Waits for a claim and runs it; false when stopping, idle too long, or too many others idle.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private bool RunNextWorker()
        {
            ReadJob pass;
            lock (_lock)
            {
                while (_claims == 0 && !_stopping)
                {
                    if (!Park())
                    {
                        _started--; // under the lock, no claim waiting
                        return false;
                    }
                }

                if (_stopping)
                {
                    _started--;
                    return false;
                }

                // A pass completes only after all its claims ran: a claim taken here is the published pass's.
                pass = _pass!;
                if (--_claims == 0)
                {
                    _pass = null;
                }
            }

            pass.RunOneWorker();
            return true;
        }

        /// <summary>Waits, lock held, for a claim or a stop; false when the thread should end.</summary>
        private bool Park()
        {
            if (Interlocked.Increment(ref s_parked) > MaxParkedThreads)
            {
                Interlocked.Decrement(ref s_parked);
                return false;
            }

            try
            {
                return Monitor.Wait(_lock, IdleTimeout) || _claims > 0 || _stopping;
            }
            finally
            {
                Interlocked.Decrement(ref s_parked);
            }
        }
    }
}
