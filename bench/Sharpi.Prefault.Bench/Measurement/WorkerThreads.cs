namespace Sharpi.Prefault.Bench;

/// <summary>
/// How the bench's readers and its first pass run on several threads: worker 0 on the calling thread, the others on
/// their own background threads (small stacks, started here, no thread pool), all joined before it returns. The
/// caller's clock brackets the call, so thread start-up is timed alike in every row. Whatever happens (a thread that
/// cannot start, worker 0 throwing), every thread started is joined before it returns or throws, so no worker still
/// uses memory the caller frees after it.
/// </summary>
internal static class WorkerThreads
{
    internal static void Run(int threads, string name, Action<int> work)
    {
        var helpers = new List<Thread>(threads - 1);
        try
        {
            for (int i = 1; i < threads; i++)
            {
                int worker = i;
                var helper = new Thread(() => work(worker), 256 * 1024) { IsBackground = true, Name = name };
                helper.Start();
                helpers.Add(helper);
            }

            work(0);
        }
        finally
        {
            foreach (Thread helper in helpers)
            {
                helper.Join();
            }
        }
    }
}
