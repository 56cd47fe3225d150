namespace Sharpi.Prefault.Bench;

/// <summary>
/// How the bench's readers and its first pass run on several threads: worker 0 on the calling thread, the others on
/// their own background threads (small stacks, started here, no thread pool), all joined before it returns. The
/// caller's clock brackets the call, so thread start-up is timed alike in every row.
/// </summary>
internal static class WorkerThreads
{
    internal static void Run(int threads, string name, Action<int> work)
    {
        var helpers = new Thread[threads - 1];
        for (int i = 0; i < helpers.Length; i++)
        {
            int worker = i + 1;
            helpers[i] = new Thread(() => work(worker), 256 * 1024) { IsBackground = true, Name = name };
            helpers[i].Start();
        }

        work(0);
        foreach (Thread helper in helpers)
        {
            helper.Join();
        }
    }
}
