namespace Sharpi.Prefault.Tests.DirectIO;

/// <summary>
/// Readers an engine never disposes (a misuse, but one a long-lived process makes) kept their threads parked until a
/// GC finalized them: 2,000 such readers held 5,265 threads and 1.6 GiB. Idle threads beyond a process-wide few end.
/// In the collection that runs alone, so the thread count is this test's.
/// </summary>
[Collection(ProcessMemoryFigures.Name)]
public sealed class DirectFileReaderIdleThreadsTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Readers_NeverDisposed_DoNotEachKeepTheirThreads()
    {
        const int Readers = 400;
        using TestFile file = TestFile.Create(TestFile.MiB);
        var options = new DirectReadOptions { BlockSize = 64 * 1024, MaxReadsInFlight = 4 };
        byte[] buffer = new byte[256 * 1024]; // four blocks: each read starts three threads beside the caller
        var readers = new List<DirectFileReader>(Readers); // kept reachable: no finalizer can stop their threads
        long before = ProcessThreads();
        try
        {
            for (int i = 0; i < Readers; i++)
            {
                var reader = DirectFileReader.Open(file.Path, options);
                Assert.Equal(buffer.Length, reader.Read(0, buffer));
                readers.Add(reader);
            }

            long added = ProcessThreads() - before;
            Assert.InRange(added, 0, DirectFileReader.MaxParkedThreads + 16);
        }
        finally
        {
            readers.ForEach(r => r.Dispose());
        }
    }

    private static long ProcessThreads()
    {
        foreach (string line in File.ReadLines("/proc/self/status"))
        {
            if (line.StartsWith("Threads:", StringComparison.Ordinal))
            {
                return long.Parse(line["Threads:".Length..].Trim(), System.Globalization.CultureInfo.InvariantCulture);
            }
        }

        throw new InvalidOperationException("/proc/self/status has no Threads: line.");
    }
}
