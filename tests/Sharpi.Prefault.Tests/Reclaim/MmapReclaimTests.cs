using System.IO.MemoryMappedFiles;
using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Tests.Reclaim;

[Collection(ProcessMemoryFigures.Name)]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class MmapReclaimTests(ITestOutputHelper output)
{
    private static readonly long Page = Environment.SystemPageSize;

    private static readonly ReclaimOptions DontNeed = new ReclaimOptions { Mechanism = ReclaimMechanism.DontNeed };

    // MADV_PAGEOUT (Linux 5.4+): reclaim the range now, private pages to swap.
    private const int MadvPageout = 21;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Release_OfAReadView_DropsRssFile_ByTheReleasedBytes()
    {
        using TestFile file = TestFile.Create(128 * TestFile.MiB);
        using MappedFile map = file.Map();
        PageTouch.TouchEveryPage(map.Region());
        long before = ProcessStatus.RssFileBytes;

        ReclaimResult result = MmapReclaim.Release([map.Region("weights")]);

        long after = ProcessStatus.RssFileBytes;
        long drop = before - after;
        output.WriteLine($"RssFile {before >> 20} MiB -> {after >> 20} MiB: fell {drop >> 20} MiB for {result.BytesReleased >> 20} MiB released ({100.0 * drop / result.BytesReleased:F1}%)");
        Assert.True(result.IsSupported);
        Assert.Equal(128 * TestFile.MiB, result.BytesRequested);
        Assert.Equal(128 * TestFile.MiB, result.BytesReleased);
        Assert.Empty(result.Skipped);
        Assert.True(drop >= result.BytesReleased * 95 / 100, $"RssFile fell by {drop} bytes; released {result.BytesReleased}");
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Release_ThenReread_GivesTheFilesBytes()
    {
        using TestFile file = TestFile.Create(128 * TestFile.MiB);
        using MappedFile map = file.Map();
        PageTouch.TouchEveryPage(map.Region());

        MmapReclaim.Release([map.Region()]);

        Assert.True(PageTouch.Bytes(map.Region()).SequenceEqual(File.ReadAllBytes(file.Path)));
    }

    /// <summary>
    /// MADV_DONTNEED only unmaps: the page cache keeps the file. (MADV_PAGEOUT, the default, reclaims pages mapped only
    /// here, and the kernel may drop a page read once from the cache too: the next read can go to disk.)
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Release_WithDontNeed_ThenSecondPass_TakesNoMajorFaults_WhileThePageCacheHoldsTheFile()
    {
        using TestFile file = TestFile.Create(128 * TestFile.MiB);
        using MappedFile map = file.Map();
        PageTouch.TouchEveryPage(map.Region());
        MmapReclaim.Release([map.Region()], DontNeed);
        (long minorBefore, long majorBefore) = ProcessStatus.PageFaults();

        PageTouch.TouchEveryPage(map.Region());

        (long minorAfter, long majorAfter) = ProcessStatus.PageFaults();
        Assert.Equal(0, majorAfter - majorBefore);
        Assert.True(minorAfter > minorBefore, "the second pass should fault the released pages back in (minor faults)");
        Assert.Equal(map.Length / Page, PageMap.CountPresent(map.Region().Address, map.Length));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Release_OfAnUnalignedRegion_KeepsItsEdgePages()
    {
        using TestFile file = TestFile.Create(16 * TestFile.MiB);
        using MappedFile map = file.Map();
        PageTouch.TouchEveryPage(map.Region());
        long length = 8 * TestFile.MiB - 200;

        ReclaimResult result = MmapReclaim.Release([map.Region(100, length, "unaligned")]);

        nint start = map.Region().Address;
        Assert.Equal(8 * TestFile.MiB - 2 * Page, result.BytesReleased);
        Assert.True(PageMap.IsPresent(start), "the first page also holds bytes before the region");
        Assert.False(PageMap.IsPresent(start + (nint)Page));
        Assert.False(PageMap.IsPresent(start + (nint)(8 * TestFile.MiB - 2 * Page)));
        Assert.True(PageMap.IsPresent(start + (nint)(8 * TestFile.MiB - Page)), "the last page also holds bytes after the region");
        Assert.True(PageMap.IsPresent(start + (nint)(8 * TestFile.MiB)));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Release_OfARegionSmallerThanAPage_ReleasesNothing_AndSaysWhy()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using MappedFile map = file.Map();
        PageTouch.TouchEveryPage(map.Region());

        ReclaimResult result = MmapReclaim.Release([map.Region(100, 200, "norm.weight")]);

        Assert.Equal(0, result.BytesReleased);
        RegionFailure skipped = Assert.Single(result.Skipped);
        Assert.Equal("norm.weight", skipped.Name);
        Assert.Contains("no whole page", skipped.Message, StringComparison.Ordinal);
        Assert.True(PageMap.IsPresent(map.Region().Address));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Release_OfNeighbourRegions_ReleasesThePageTheyShare()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using MappedFile map = file.Map();
        PageTouch.TouchEveryPage(map.Region());

        ReclaimResult result = MmapReclaim.Release([map.Region(0, Page + 100, "a"), map.Region(Page + 100, 2 * Page - 100, "b")]);

        Assert.Equal(3 * Page, result.BytesReleased);
        Assert.Equal(0, PageMap.CountPresent(map.Region().Address, 3 * Page));
    }

    /// <summary>
    /// MADV_PAGEOUT leaves a page that another mapping also maps (here a second view of the same file; another process
    /// counts the same): the pages stay in this process, and the result says so instead of counting them released.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Release_OfAFileMappedTwice_KeepsItsPagesMapped_AndSaysWhy()
    {
        (ReclaimResult result, int presentAfter) = ReleaseOfAFileMappedTwice(options: null);

        output.WriteLine(result.Reason);
        Assert.Equal(0, result.BytesReleased);
        RegionFailure kept = Assert.Single(result.Skipped);
        Assert.Equal("weights", kept.Name);
        Assert.Equal(8 * TestFile.MiB, kept.Length);
        Assert.Contains("mapped more than once", kept.Message, StringComparison.Ordinal);
        Assert.Contains("ReclaimMechanism.DontNeed", kept.Message, StringComparison.Ordinal);
        Assert.Equal(8 * TestFile.MiB / Page, presentAfter);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Release_WithDontNeed_OfAFileMappedTwice_DropsItsPages()
    {
        (ReclaimResult result, int presentAfter) = ReleaseOfAFileMappedTwice(DontNeed);

        Assert.Equal(8 * TestFile.MiB, result.BytesReleased);
        Assert.Empty(result.Skipped);
        Assert.Equal(0, presentAfter);
    }

    /// <summary>
    /// Releases the region "weights" over one of two views of the same 8 MiB file, every page of both touched; returns
    /// the result and how many pages of the released view are still mapped after it.
    /// </summary>
    private static (ReclaimResult Result, int PresentAfter) ReleaseOfAFileMappedTwice(ReclaimOptions? options)
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        using MappedFile map = file.Map();
        using MappedFile other = file.Map();
        PageTouch.TouchEveryPage(map.Region());
        PageTouch.TouchEveryPage(other.Region());

        ReclaimResult result = MmapReclaim.Release([map.Region("weights")], options);
        return (result, PageMap.CountPresent(map.Region().Address, map.Length));
    }

    /// <summary>
    /// The kernel pages a file's pages out only for a process that owns the file or may write it (the usual service
    /// user reading root-owned weights may not). Made to happen here as root: the file belongs to nobody, mode 0444,
    /// and the releasing thread drops CAP_FOWNER and CAP_DAC_OVERRIDE (capabilities are per thread). MADV_PAGEOUT keeps
    /// every page and the result says why; MADV_DONTNEED, on the same thread, drops them.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.LinuxRoot))]
    public void Release_OfAFileTheProcessMayNotWrite_KeepsItsPagesWithPageOut_AndDropsThemWithDontNeed()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        using MappedFile map = file.Map();
        PageTouch.TouchEveryPage(map.Region());
        File.SetUnixFileMode(file.Path, UnixFileMode.UserRead | UnixFileMode.GroupRead | UnixFileMode.OtherRead);
        NativeTestMethods.ChangeOwner(file.Path, 65534, 65534);
        ReclaimResult? pageOut = null, dontNeed = null;
        int presentAfterPageOut = -1;
        var thread = new Thread(() =>
        {
            NativeTestMethods.DropFromThisThread(NativeTestMethods.CapFowner, NativeTestMethods.CapDacOverride);
            pageOut = MmapReclaim.Release([map.Region("weights")]);
            presentAfterPageOut = PageMap.CountPresent(map.Region().Address, map.Length);
            dontNeed = MmapReclaim.Release([map.Region("weights")], DontNeed);
        });
        thread.Start();
        thread.Join();

        output.WriteLine(pageOut!.Reason);
        Assert.Equal(0, pageOut.BytesReleased);
        RegionFailure kept = Assert.Single(pageOut.Skipped);
        Assert.Contains("owns the file or may write it", kept.Message, StringComparison.Ordinal);
        Assert.Equal(8 * TestFile.MiB / Page, presentAfterPageOut);
        Assert.Equal(8 * TestFile.MiB, dontNeed!.BytesReleased);
        Assert.Equal(0, PageMap.CountPresent(map.Region().Address, map.Length));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Release_OfAReadWriteView_Throws_AndReleasesNothing()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using MappedFile readOnly = file.Map();
        using MappedFile readWrite = file.Map(MemoryMappedFileAccess.ReadWrite);
        PageTouch.TouchEveryPage(readOnly.Region());
        PageTouch.TouchEveryPage(readWrite.Region());

        var e = Assert.Throws<ArgumentException>(() => MmapReclaim.Release([readOnly.Region("fine"), readWrite.Region("scratch")]));

        Assert.Contains("scratch", e.Message, StringComparison.Ordinal);
        Assert.Contains("writable shared view", e.Message, StringComparison.Ordinal);
        Assert.Contains("MemoryMappedFileAccess.Read", e.Message, StringComparison.Ordinal);
        Assert.Equal(TestFile.MiB / Page, PageMap.CountPresent(readOnly.Region().Address, TestFile.MiB));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Release_OfACopyOnWriteViewThatWasWritten_Throws()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using MappedFile map = file.Map(MemoryMappedFileAccess.CopyOnWrite);
        map.View.Write(0, (byte)42);

        var e = Assert.Throws<ArgumentException>(() => MmapReclaim.Release([map.Region("patched")]));

        Assert.Contains("patched", e.Message, StringComparison.Ordinal);
        Assert.Contains("copy-on-write", e.Message, StringComparison.Ordinal);
        Assert.Equal(42, map.View.ReadByte(0));
    }

    /// <summary>
    /// A written copy-on-write page that went to swap leaves smaps' Anonymous at 0 and shows under Swap: it is still
    /// the only copy of the written bytes, and MADV_DONTNEED would drop its swap slot and read the file's byte back.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Swap))]
    public unsafe void Release_OfACopyOnWriteViewWhoseWrittenPageWasSwappedOut_Throws_AndKeepsTheWrittenByte()
    {
        using SwapFile swap = SwapFile.Create(64 * TestFile.MiB);
        using TestFile file = TestFile.Create(TestFile.MiB);
        using MappedFile map = file.Map(MemoryMappedFileAccess.CopyOnWrite);
        byte written = (byte)(File.ReadAllBytes(file.Path)[0] ^ 0xFF);
        map.View.Write(0, written);
        nint page = map.Region().Address;
        Assert.Equal(0, global::Interop.Libc.Madvise((void*)page, (nuint)Page, MadvPageout));
        SmapsFigures figures = FiguresOf(page);
        output.WriteLine($"after MADV_PAGEOUT: Anonymous {figures.AnonymousBytes} bytes, Swap {figures.SwapBytes} bytes");
        Assert.True(figures.SwapBytes > 0 && figures.AnonymousBytes == 0, "MADV_PAGEOUT should have swapped the written page out");

        Exception? refused = Record.Exception(() => MmapReclaim.Release([map.Region("patched")]));

        Assert.Equal(written, map.View.ReadByte(0));
        Assert.IsType<ArgumentException>(refused);
        Assert.Contains("patched", refused.Message, StringComparison.Ordinal);
        Assert.Contains("swapped out", refused.Message, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Release_OfACopyOnWriteViewNeverWritten_Throws_AndKeepsItsPages()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using MappedFile map = file.Map(MemoryMappedFileAccess.CopyOnWrite);
        PageTouch.TouchEveryPage(map.Region());

        var e = Assert.Throws<ArgumentException>(() => MmapReclaim.Release([map.Region("engine")]));

        Assert.Contains("copy-on-write", e.Message, StringComparison.Ordinal);
        Assert.Equal(TestFile.MiB / Page, PageMap.CountPresent(map.Region().Address, TestFile.MiB));
    }

    /// <summary>
    /// Another thread writes a copy-on-write view while Release runs: a check of smaps then a madvise lost the finished
    /// write in 348 of 400 tries. Each try maps a fresh view, so the write is always the view's first.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Release_WhileAnotherThreadWritesACopyOnWriteView_NeverLosesTheWrite()
    {
        const int Tries = 400;
        var random = new Random(20261123);
        using TestFile file = TestFile.Create(64 * 1024);
        byte original = File.ReadAllBytes(file.Path)[0];
        int lost = 0;
        for (int i = 0; i < Tries; i++)
        {
            using MappedFile map = file.Map(MemoryMappedFileAccess.CopyOnWrite);
            PageTouch.TouchEveryPage(map.Region());
            byte written = (byte)(original ^ 0xFF);
            int spins = random.Next(0, 20_000);
            using var go = new ManualResetEventSlim();
            var writer = new Thread(() =>
            {
                go.Wait();
                Thread.SpinWait(spins);
                map.View.Write(0, written);
            });
            writer.Start();
            go.Set();
            try
            {
                MmapReclaim.Release([map.Region("engine")]);
            }
            catch (ArgumentException)
            {
                // Refused: the view is a writable copy-on-write one.
            }

            writer.Join();
            lost += map.View.ReadByte(0) == written ? 0 : 1;
        }

        Assert.Equal(0, lost);
    }

    /// <summary>
    /// The engine replaces a read-only view's addresses with anonymous memory (mmap MAP_FIXED) and writes it while
    /// Release runs. The smaps check and MADV_DONTNEED were two steps: when the replacement landed between them,
    /// the madvise zeroed the engine's freshly written pages (148 of 300 tries in the report). Each try maps a fresh
    /// view, so the replacement is always new memory; every page the engine wrote must read back as written.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public unsafe void Release_WhileTheEngineReplacesTheViewWithAnonymousMemory_NeverZeroesAWrittenPage()
    {
        const int Tries = 300;
        const int ViewPages = 16;
        const byte Written = 0xA5;
        int seed = 20261126;
        output.WriteLine($"seed {seed}");
        var random = new Random(seed);
        long length = ViewPages * Page;
        using TestFile file = TestFile.Create(length);
        using Microsoft.Win32.SafeHandles.SafeFileHandle handle = File.OpenHandle(file.Path);
        int zeroedPages = 0, triesLosingPages = 0, refused = 0;
        for (int i = 0; i < Tries; i++)
        {
            nint view = NativeTestMethods.MapFile(handle, length, NativeTestMethods.ProtRead, NativeTestMethods.MapShared);
            try
            {
                PageTouch.TouchEveryPage(new PrefaultRegion(view, length));
                int spins = random.Next(0, 20_000);
                using var go = new ManualResetEventSlim();
                var engine = new Thread(() =>
                {
                    go.Wait();
                    Thread.SpinWait(spins);
                    NativeTestMethods.ReplaceWithAnonymous(view, length);
                    for (long at = 0; at < length; at += Page)
                    {
                        *(byte*)(view + (nint)at) = Written;
                    }
                });
                engine.Start();
                go.Set();
                try
                {
                    MmapReclaim.Release([new PrefaultRegion(view, length, "engine")]);
                }
                catch (ArgumentException)
                {
                    refused++; // the check saw the anonymous memory: nothing released
                }

                engine.Join();
                int lost = 0;
                for (long at = 0; at < length; at += Page)
                {
                    lost += *(byte*)(view + (nint)at) == Written ? 0 : 1;
                }

                zeroedPages += lost;
                triesLosingPages += lost > 0 ? 1 : 0;
            }
            finally
            {
                NativeTestMethods.Unmap(view, length);
            }
        }

        output.WriteLine($"{Tries} tries: {triesLosingPages} lost written pages ({zeroedPages} pages in all); {refused} refused (the check saw the new memory)");
        Assert.Equal(0, zeroedPages);
    }

    /// <summary>
    /// Private hugetlb memory, written then made read-only: /proc/self/smaps names it /anon_hugepage (deleted), with
    /// an inode, and counts it in neither Anonymous nor Swap, so it passed as a read-only file view and was zeroed.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Hugetlb))]
    public unsafe void Release_OfWrittenPrivateHugetlbMemory_Throws_AndKeepsTheWrittenBytes()
    {
        using HugetlbPages pool = HugetlbPages.Reserve(1);
        long length = HugetlbPages.PageBytes;
        nint memory = NativeTestMethods.Map(length, NativeTestMethods.ProtRead | NativeTestMethods.ProtWrite,
            NativeTestMethods.MapPrivate | NativeTestMethods.MapAnonymousFlag | NativeTestMethods.MapHugetlb);
        try
        {
            *(byte*)memory = 42;
            NativeTestMethods.Protect(memory, length, NativeTestMethods.ProtRead);
            Assert.True(FiguresOf(memory).IsHugetlb);

            Exception? refused = Record.Exception(() => MmapReclaim.Release([new PrefaultRegion(memory, length, "huge")]));

            Assert.Equal(42, *(byte*)memory);
            Assert.IsType<ArgumentException>(refused);
            Assert.Contains("hugetlb", refused.Message, StringComparison.Ordinal);
        }
        finally
        {
            NativeTestMethods.Unmap(memory, length);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public unsafe void Release_OfAnonymousMemory_Throws()
    {
        void* memory = NativeMemory.Alloc((nuint)TestFile.MiB);
        try
        {
            var e = Assert.Throws<ArgumentException>(() => MmapReclaim.Release([new PrefaultRegion((nint)memory, TestFile.MiB, "buffer")]));

            Assert.Contains("buffer", e.Message, StringComparison.Ordinal);
            Assert.Contains("anonymous memory", e.Message, StringComparison.Ordinal);
        }
        finally
        {
            NativeMemory.Free(memory);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Release_OfAnUnmappedRange_Throws()
    {
        nint address = Unmapped.Address(TestFile.MiB);

        var e = Assert.Throws<ArgumentException>(() => MmapReclaim.Release([new PrefaultRegion(address, TestFile.MiB, "gone")]));

        Assert.Contains("gone", e.Message, StringComparison.Ordinal);
        Assert.Contains("not mapped", e.Message, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public void Release_OfALockedRange_SkipsIt_UntilTheLeaseIsDisposed()
    {
        using TestFile file = TestFile.Create(4 * TestFile.MiB);
        using MappedFile map = file.Map();
        LockLease lease = MmapLock.Lock([map.Region(0, TestFile.MiB)]);
        Assert.True(lease.IsFullyLocked);

        ReclaimResult whileLocked = MmapReclaim.Release([map.Region("weights")]);
        int lockedPagesPresent = PageMap.CountPresent(map.Region().Address, TestFile.MiB);
        lease.Dispose();
        ReclaimResult afterDispose = MmapReclaim.Release([map.Region("weights")]);

        Assert.Equal(3 * TestFile.MiB, whileLocked.BytesReleased);
        RegionFailure skipped = Assert.Single(whileLocked.Skipped);
        Assert.Equal(TestFile.MiB, skipped.Length);
        Assert.Contains("locked", skipped.Message, StringComparison.Ordinal);
        Assert.Equal(TestFile.MiB / Page, lockedPagesPresent);
        Assert.Equal(4 * TestFile.MiB, afterDispose.BytesReleased);
    }

    [Fact]
    public void Release_OfNoRegions_ReleasesNothing()
    {
        ReclaimResult result = MmapReclaim.Release(Array.Empty<PrefaultRegion>());

        Assert.Equal(0, result.BytesReleased);
        Assert.Equal(0, result.BytesRequested);
    }

    [Fact]
    public void Release_WithNegativeLength_Throws()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => MmapReclaim.Release([new PrefaultRegion(4096, -1)]));
    }

    private static SmapsFigures FiguresOf(nint address)
    {
        SmapsSnapshot smaps = ProcMaps.ReadSelfSmaps();
        for (int i = 0; i < smaps.Maps.Length; i++)
        {
            if ((nuint)smaps.Maps[i].Start <= (nuint)address && (nuint)address < (nuint)smaps.Maps[i].End)
            {
                return smaps.Figures[i];
            }
        }

        throw new InvalidOperationException($"0x{address:X} is in no mapping of {ProcMaps.SelfSmapsPath}");
    }
}
