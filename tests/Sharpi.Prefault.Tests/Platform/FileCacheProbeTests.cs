using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Tests;

/// <summary>cachestat-based counting must agree with mincore, and fall back to it where cachestat cannot answer.</summary>
[SupportedOSPlatform("linux")] // every test needs Requirements.Linux
public sealed class FileCacheProbeTests
{
    private const long MiB = TestFile.MiB;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void TryCountResident_OnAPartlyCachedFile_AgreesWithMincore()
    {
        using TestFile file = TestFile.Create(32 * MiB);
        using (FileStream stream = new(file.Path, FileMode.Open, FileAccess.Read, FileShare.Read, 1, FileOptions.RandomAccess))
        {
            stream.Position = 8 * MiB;
            stream.ReadExactly(new byte[4 * MiB]);
        }

        using MappedFile map = file.Map();
        PrefaultRegion region = map.Region(4097, 20 * MiB);
        MergedRegion merged = new(region.Address, region.End, "r", 0);
        using FileCacheProbe probe = FileCacheProbe.Create([merged], ProcMaps.ReadFor([merged]));

        bool answered = probe.TryCachestat(merged.Start, merged.End, out long viaCachestat, out _);
        Assert.True(Mincore.TryCountResident(merged.Start, merged.End, out long viaMincore, out _));

        // cachestat arrived in Linux 6.5: there it must answer, and agree with mincore page for page.
        if (Environment.OSVersion.Version >= new Version(6, 5))
        {
            Assert.True(answered, "cachestat did not answer for a regular file mapping");
        }

        Assert.InRange(viaMincore, 4 * MiB, 5 * MiB);
        if (answered)
        {
            Assert.Equal(viaMincore, viaCachestat);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public unsafe void TryCountResident_OnAnonymousMemory_FallsBackToMincore()
    {
        nuint size = (nuint)(2 * Environment.SystemPageSize);
        void* block = NativeMemory.AlignedAlloc(size, (nuint)Environment.SystemPageSize);
        try
        {
            new Span<byte>(block, (int)size).Fill(1);
            MergedRegion merged = new((nint)block, (nint)block + (nint)size, "anon", 0);
            using FileCacheProbe probe = FileCacheProbe.Create([merged], ProcMaps.ReadFor([merged]));

            Assert.True(probe.TryCountResident(merged.Start, merged.End, out long resident, out _, out _));
            Assert.Equal((long)size, resident);
        }
        finally
        {
            NativeMemory.AlignedFree(block);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void TryCountResident_OfAnUnmappedRange_FailsWithMincoresErrno()
    {
        nint gone = Unmapped.Address(MiB);
        MergedRegion merged = new(gone, gone + (nint)MiB, "gone", 0);
        using FileCacheProbe probe = FileCacheProbe.Create([merged], ProcMaps.ReadFor([merged]));

        Assert.False(probe.TryCountResident(merged.Start, merged.End, out _, out _, out PlatformError error));
        Assert.Equal(PlatformError.FromErrno("mincore", global::Interop.LinuxConstants.ENOMEM), error);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void CountResident_CountsEachRange_AndSumsTheCountedOnes()
    {
        using TestFile file = TestFile.Create(4 * MiB, evict: false);
        using MappedFile map = file.Map();
        nint gone = Unmapped.Address(MiB);
        MergedRegion[] ranges = [new(map.Region().Address, map.Region().End, "file", 0), new(gone, gone + (nint)MiB, "gone", 1)];
        var each = new RangeResidency[ranges.Length];

        long total = FileCacheProbe.CountResident(ranges, ProcMaps.ReadFor(ranges), each);

        Assert.Equal(new RangeResidency(4 * MiB, true, PlatformError.None), each[0]);
        Assert.Equal(PlatformError.FromErrno("mincore", global::Interop.LinuxConstants.ENOMEM), each[1].Error);
        Assert.False(each[1].IsCounted);
        Assert.Equal(4 * MiB, total);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Probe_OverManyFiles_HoldsOneDescriptorAtATime_AndCountsEach()
    {
        // One descriptor per file, held for the whole count, took every descriptor of a tool over 61,000 files (ulimit -n
        // 20000): a thread the runtime started meanwhile could not get its pipe and the runtime aborted the tool.
        const int Files = 64;
        string folder = Path.Combine(Path.GetTempPath(), $"sharpi-probe-{Guid.NewGuid():N}");
        Directory.CreateDirectory(folder);
        var files = new List<TestFile>();
        var maps = new List<MappedFile>();
        try
        {
            for (int i = 0; i < Files; i++)
            {
                files.Add(TestFile.Create(4 * Environment.SystemPageSize, folder));
                if (i % 2 == 0)
                {
                    File.ReadAllBytes(files[i].Path); // even files cached whole, odd ones cold
                }

                maps.Add(files[i].Map());
            }

            MergedRegion[] ranges = [.. maps.Select((m, i) => new MergedRegion(m.Region().Address, m.Region().End, $"f{i}", i)).OrderBy(r => (nuint)r.Start)];
            using FileCacheProbe probe = FileCacheProbe.Create(ranges, ProcMaps.ReadFor(ranges));
            int mostOpen = OpenUnder(folder);
            long total = 0;
            foreach (MergedRegion range in ranges)
            {
                Assert.True(probe.TryCountResident(range.Start, range.End, out long resident, out _, out _));
                Assert.Equal(range.Order % 2 == 0 ? range.End - range.Start : 0, resident);
                total += resident;
                mostOpen = Math.Max(mostOpen, OpenUnder(folder));
            }

            Assert.Equal(Files / 2 * 4L * Environment.SystemPageSize, total);
            Assert.InRange(mostOpen, 0, 1);
        }
        finally
        {
            maps.ForEach(m => m.Dispose());
            files.ForEach(f => f.Dispose());
            Directory.Delete(folder, recursive: true);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void OpenIfSameFile_WhileAFifoIsRenamedOverThePath_NeverWaitsForAWriter()
    {
        // The path is checked, then opened: a FIFO renamed over it in between made the open wait for a writer, and the
        // sweep's thread, Completion and Dispose with it (an adversarial pass hung it within 1,000 renames). A race, run
        // as one: the path flips between a FIFO and a link to the mapped file while the opens run.
        string folder = Directory.CreateTempSubdirectory("sharpi-fifo-race-").FullName;
        string real = Path.Combine(folder, "real.bin");
        string path = Path.Combine(folder, "model.bin");
        File.WriteAllBytes(real, new byte[64 * 1024]);
        long inode = (long)FileStatus.Of(real).Inode;
        File.CreateSymbolicLink(path, real);
        using var stop = new CancellationTokenSource();
        Task swapper = Task.Run(() =>
        {
            for (int i = 0; !stop.IsCancellationRequested; i++)
            {
                string fifo = Path.Combine(folder, $"fifo-{i}");
                Sharpi.Prefault.Tests.Mappings.NativeFifo.Create(fifo);
                File.Move(fifo, path, overwrite: true);
                string link = Path.Combine(folder, $"link-{i}");
                File.CreateSymbolicLink(link, real);
                File.Move(link, path, overwrite: true);
            }
        });
        int opened = 0, turnedAway = 0;
        Task opens = Task.Run(() =>
        {
            var watch = System.Diagnostics.Stopwatch.StartNew();
            while (watch.Elapsed < TimeSpan.FromSeconds(3))
            {
                using SafeHandle? handle = FileCacheProbe.OpenIfSameFile(path, inode);
                _ = handle is null ? turnedAway++ : opened++;
            }
        });
        try
        {
            Assert.True(opens.Wait(TimeSpan.FromSeconds(30)), $"an open waited for a writer (after {opened} opened, {turnedAway} turned away)");
            Assert.True(opened > 0, "the mapped file was never opened through the link");
        }
        finally
        {
            stop.Cancel();
            swapper.Wait(TimeSpan.FromSeconds(10));
            if (opens.IsCompleted)
            {
                Directory.Delete(folder, recursive: true);
            }
        }
    }

    /// <summary>This process's open descriptors on files in <paramref name="folder"/> (its mappings hold none).</summary>
    private static int OpenUnder(string folder)
    {
        int open = 0;
        foreach (string fd in Directory.EnumerateFileSystemEntries("/proc/self/fd"))
        {
            try
            {
                if (new FileInfo(fd).LinkTarget is string target && target.StartsWith(folder + "/", StringComparison.Ordinal))
                {
                    open++;
                }
            }
            catch (IOException)
            {
                // A descriptor closed while listed.
            }
        }

        return open;
    }
}
