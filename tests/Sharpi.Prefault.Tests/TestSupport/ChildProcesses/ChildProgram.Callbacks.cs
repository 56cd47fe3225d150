namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>The child cases about a caller's callback that throws.</summary>
internal static partial class ChildProgram
{
    /// <summary>
    /// A caller's callback that throws on the library's own thread: "start-logger", a logger that throws at every line,
    /// given to <see cref="MmapPrefault.Start(PrefaultRegion[], PrefaultOptions?, CancellationToken)"/>; "warm-progress",
    /// a progress that throws at every report, given to <see cref="PageCache.WarmAsync"/>. An exception that leaves the
    /// library's thread ends this process (exit 134) before it prints <c>done</c>.
    /// </summary>
    private static int ThrowingCallback(string what, string path)
    {
        if (what == "start-logger")
        {
            using MappedModel model = MappedModel.OpenFile(path);
            using PrefaultHandle handle = MmapPrefault.Start([model.FileRegion(path)], new PrefaultOptions { Logger = new ThrowingLogger() });
            PrefaultResult result = handle.Completion.GetAwaiter().GetResult();
            Console.WriteLine($"ran={result.HasRun}");
            Console.WriteLine($"reason={result.Reason}");
        }
        else
        {
            PageCacheWarmResult result = PageCache.WarmAsync(path, new ThrowingProgress()).AsTask().GetAwaiter().GetResult();
            Console.WriteLine($"warmBytes={result.BytesRead}");
            Console.WriteLine($"warmComplete={result.IsComplete}");
        }

        Console.WriteLine("done");
        return 0;
    }

    private sealed class ThrowingProgress : IProgress<long>
    {
        public void Report(long value) => throw new InvalidOperationException("the progress bar failed");
    }
}
