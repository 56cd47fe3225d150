using System.Runtime.CompilerServices;

namespace Sharpi.Prefault;

// The reader's own threads, which run the workers of its reads.
public sealed partial class DirectFileReader
{
    /// <summary>Reader threads of all readers that may wait idle for a next read (the tests read it to bound them).</summary>
    internal static int MaxParkedThreads => WorkerThreads.MaxParkedThreads;

    /// <summary>
    /// Dedicated threads, started on first need (never more than the reads in flight), as the prefault sweep runs on
    /// its own threads: a read's workers block in pread for as long as the disk takes, and on thread-pool threads they
    /// would starve the pool, or wait for it.
    /// </summary>
    private sealed class WorkerThreads
    {
        /// <summary>How long a thread waits for the next read before it ends.</summary>
        internal static readonly TimeSpan IdleTimeout = TimeSpan.FromSeconds(10);

        /// <summary>Threads of all readers that may wait, idle, for a next read; more end at once (and start again when needed).</summary>
        internal static readonly int MaxParkedThreads = Math.Max(64, 4 * Environment.ProcessorCount);

        private static int s_parked;

        private readonly object _lock = new();
        private int _started;
        private int _claims;
        private ReadJob? _pass;
        private bool _stopping;

        /// <summary>Threads of all readers waiting for a read now.</summary>
        internal static int Parked => Volatile.Read(ref s_parked);

        /// <summary>
        /// Has <paramref name="workers"/> of the threads each run one worker of <paramref name="pass"/>, starting those
        /// missing. Returns the workers no thread will run, which the caller runs itself: all of them when not one
        /// thread can be started or is left (the process or its pids cgroup is out of threads), else none (the
        /// threads there are run the claims in turn).
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
                // Not "Sharpi.Prefault ...": Linux shows a thread's name cut to 15 characters, and those are the
                // prefault sweep's threads, which run at a lower priority than these.
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
                    // No thread left to start (a pids cgroup at pids.max, say): the reader reads on fewer.
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

                // Not one thread: take the claims back (none was taken), and the caller runs them.
                _claims -= workers;
                _pass = null;
                return workers;
            }
        }

        /// <summary>Lets every thread end. Only between passes.</summary>
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

        /// <summary>
        /// Waits for a claim and runs it; false when the threads are stopping, or this one has been idle long enough or
        /// would park beside too many others.
        /// </summary>
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
                        _started--; // under the lock, with no claim waiting: Start counts this thread out
                        return false;
                    }
                }

                if (_stopping)
                {
                    _started--;
                    return false;
                }

                // Claims are added with their pass, and a pass completes only after all its claims have run, so a claim
                // taken here belongs to the pass published now.
                pass = _pass!;
                if (--_claims == 0)
                {
                    _pass = null;
                }
            }

            pass.RunOneWorker();
            return true;
        }

        /// <summary>Waits, with the lock held, for a claim or a stop; false when the thread should end instead.</summary>
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
