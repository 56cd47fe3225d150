using System.Runtime.CompilerServices;

namespace Sharpi.Prefault;

/// <summary>The reader's own threads, which run the workers of its reads.</summary>
public sealed partial class DirectFileReader
{
    /// <summary>
    /// Dedicated threads, started on first need (never more than the reads in flight) and kept until the reader is
    /// disposed, as the prefault sweep runs on its own threads: a read's workers block in pread for as long as the disk
    /// takes, and on thread-pool threads they would starve the pool, or wait for it. One pass at a time (the reader's
    /// read gate serialises reads).
    /// </summary>
    /// <remarks>
    /// The threads hold this object, never the reader, and drop a pass once its last claim is taken: between reads no
    /// thread keeps the reader (or a caller's destination) alive, so an undisposed reader is still finalized, and its
    /// finalizer stops them.
    /// </remarks>
    private sealed class WorkerThreads
    {
        private readonly object _lock = new();
        private int _started;
        private int _claims;
        private ReadJob? _pass;
        private bool _stopping;

        /// <summary>Has <paramref name="workers"/> of the threads each run one worker of <paramref name="pass"/>.</summary>
        internal void Start(ReadJob pass, int workers)
        {
            if (workers <= 0)
            {
                return;
            }

            while (_started < workers)
            {
                // Not "Sharpi.Prefault ...": Linux shows a thread's name cut to 15 characters, and those are the
                // prefault sweep's threads, which run at a lower priority than these.
                var thread = new Thread(Loop, maxStackSize: 256 * 1024)
                {
                    IsBackground = true,
                    Name = "Sharpi.DirectIO reader",
                };
                thread.Start();
                _started++;
            }

            lock (_lock)
            {
                _pass = pass;
                _claims += workers;
                Monitor.PulseAll(_lock);
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
        /// Waits for a claim and runs it; false when the threads are stopping. A method of its own so that a parked
        /// thread's frame holds no finished pass (and through it the reader).
        /// </summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        private bool RunNextWorker()
        {
            ReadJob pass;
            lock (_lock)
            {
                while (_claims == 0 && !_stopping)
                {
                    Monitor.Wait(_lock);
                }

                if (_stopping)
                {
                    return false;
                }

                // Claims are added with their pass, and a pass completes only after all its claims have run, so a
                // claim taken here belongs to the pass published now. With its last claim taken the pass is dropped:
                // parked threads keep no pass (and through it the reader or a destination) alive.
                pass = _pass!;
                if (--_claims == 0)
                {
                    _pass = null;
                }
            }

            pass.RunOneWorker();
            return true;
        }
    }
}
