namespace Sharpi.Prefault.Tests.Platform;

/// <summary>The one reader of /proc and /sys files: their text, or null where there is none to read, never a throw.</summary>
public sealed class KernelFileTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void TryReadText_OfAProcFile_ReadsItsWholeText()
    {
        string? status = KernelFile.TryReadText("/proc/self/status");

        Assert.NotNull(status);
        Assert.StartsWith("Name:", status, StringComparison.Ordinal);
        Assert.Contains($"\nPid:\t{Environment.ProcessId}\n", status, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void TryReadText_OfAFileTheKernelRefusesToRead_IsNull()
    {
        // /proc/self/mem exists, but reading it at offset 0 (an unmapped address) fails with EIO.
        Assert.True(File.Exists("/proc/self/mem"));

        Assert.Null(KernelFile.TryReadText("/proc/self/mem"));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void TryReadText_OfAFifo_IsNull_WithoutWaitingForAWriter()
    {
        // A FIFO mounted over a sysfs file (page_reporting_order, read at every run) made the sweep's thread wait in
        // open() for a writer that never came, and the handle's Dispose with it.
        string path = Path.Combine(Path.GetTempPath(), $"sharpi-fifo-{Guid.NewGuid():N}");
        Sharpi.Prefault.Tests.Mappings.NativeFifo.Create(path);
        Task<string?> read = Task.Run(() => KernelFile.TryReadText(path));
        try
        {
            Assert.True(read.Wait(TimeSpan.FromSeconds(5)), "the read waited for a writer");
            Assert.Null(read.Result);
        }
        finally
        {
            if (!read.IsCompleted)
            {
                // Frees the reader left blocked in open(): a writer that opens and closes ends its wait.
                using var writer = new FileStream(path, FileMode.Open, FileAccess.Write);
            }

            File.Delete(path);
        }
    }

    [Fact]
    public void TryReadText_OfAMissingFile_OrADirectory_IsNull()
    {
        string missing = Path.Combine(Path.GetTempPath(), $"sharpi-{Guid.NewGuid():N}", "memory.max");

        Assert.Null(KernelFile.TryReadText(missing));
        Assert.Null(KernelFile.TryReadText(Path.GetTempPath()));
    }

    [Fact]
    public void TryReadText_OfARegularFile_ReadsItsText()
    {
        string path = Path.GetTempFileName();
        try
        {
            File.WriteAllText(path, "max\n");

            Assert.Equal("max\n", KernelFile.TryReadText(path));
        }
        finally
        {
            File.Delete(path);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void TryReadText_OfAFileLargerThanItsFirstBuffer_ReadsAllOfIt()
    {
        // The reader starts with a 4 KiB pooled buffer and grows it: a long /proc/self/maps or smaps must come back whole.
        string path = Path.GetTempFileName();
        try
        {
            string text = string.Concat(Enumerable.Range(0, 5000).Select(static i => $"line {i}\n"));
            File.WriteAllText(path, text);

            Assert.Equal(text, KernelFile.TryReadText(path));
        }
        finally
        {
            File.Delete(path);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void TryReadText_OfProcSelfMaps_EndsWithTheLastMapping()
    {
        string? maps = KernelFile.TryReadText("/proc/self/maps");

        Assert.NotNull(maps);
        Assert.True(maps.Length > 4096, $"only {maps.Length} characters");
        Assert.EndsWith("\n", maps, StringComparison.Ordinal);
        Assert.Contains("[stack]", maps, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void TryReadText_WhileADeviceIsSwappedInAfterTheCheck_IsTheFileOrNull_NeverAnEndlessRead()
    {
        // The path is checked (a regular file), then opened: a device swapped in between (/dev/zero here) was read
        // without end, the buffer doubling until renting one past int.MaxValue threw. A race, run as one: the path
        // flips between a link to a file and a link to /dev/zero while the reads run.
        string folder = Directory.CreateTempSubdirectory("sharpi-device-race-").FullName;
        string real = Path.Combine(folder, "memory.max");
        string path = Path.Combine(folder, "current");
        File.WriteAllText(real, "max\n");
        File.CreateSymbolicLink(path, real);
        using var stop = new CancellationTokenSource();
        Task swapper = Task.Run(() =>
        {
            for (int i = 0; !stop.IsCancellationRequested; i++)
            {
                string link = Path.Combine(folder, $"link-{i}");
                File.CreateSymbolicLink(link, i % 2 == 0 ? "/dev/zero" : real);
                File.Move(link, path, overwrite: true);
            }
        });
        var seen = new HashSet<string?>();
        try
        {
            var watch = System.Diagnostics.Stopwatch.StartNew();
            while (watch.Elapsed < TimeSpan.FromSeconds(3))
            {
                seen.Add(KernelFile.TryReadText(path));
            }

            Assert.Subset(new HashSet<string?> { "max\n", null }, seen);
            Assert.Contains("max\n", seen);
        }
        finally
        {
            stop.Cancel();
            swapper.Wait(TimeSpan.FromSeconds(10));
            Directory.Delete(folder, recursive: true);
        }
    }
}
