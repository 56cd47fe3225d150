using System.IO.MemoryMappedFiles;
using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// How file bytes come in before the populate: writable file mappings (an engine's own copy-on-write views, as ONNX
/// Runtime makes one per initializer) are read through the library's own read-only view first, and the engine's
/// mappings are never split, advised or changed; a sparse selection is read exactly, with no read-ahead around it.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class FileStagingTests
{
    private const long FileBytes = 16 * TestFile.MiB;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.HugePages))]
    public void Populate_FillsThePageCacheWithoutMappingTheEngineRange()
    {
        using TestFile file = TestFile.Create(FileBytes);
        using MappedFile engine = file.Map(MemoryMappedFileAccess.CopyOnWrite);
        PrefaultRegion region = engine.Region();
        MergedRegion[] merged = RegionSet.Merge([region], null);

        using FileStaging staging = Prepare(merged);
        staging.Read(region.Address, region.Address + (nint)region.Length);

        Assert.Equal(1, staging.ViewCount);
        Assert.Equal(FileBytes, staging.ViewBytes);
        Assert.Equal(100.0, Residency.OfFile(file.Path).Percent);
        Assert.Equal(0, PageMap.CountPresent(region.Address, region.Length));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.HugePages))]
    public void Prepare_LeavesReadOnlyMappingsToTheHugePageAdvice()
    {
        using TestFile file = TestFile.Create(FileBytes);
        using MappedFile view = file.Map(MemoryMappedFileAccess.Read);
        MergedRegion[] merged = RegionSet.Merge([view.Region()], null);

        using FileStaging staging = Prepare(merged);

        Assert.Equal(0, staging.ViewCount);
        Assert.Equal(0, staging.ExactMappingCount);
        Assert.Equal(FileBytes, staging.HugePageAdvisedBytes);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.HugePageRun))]
    public void Run_OverCopyOnWriteMappings_StagesThem_AndLeavesThemWhole()
    {
        using TestFile file = TestFile.Create(FileBytes);
        using MappedFile first = file.Map(MemoryMappedFileAccess.CopyOnWrite);
        using MappedFile second = file.Map(MemoryMappedFileAccess.CopyOnWrite);
        PrefaultRegion[] regions = [first.Region(0, FileBytes, "a"), second.Region(0, FileBytes, "b")]; // each mapping covered whole
        string before = MappingsOf(file.Path);
        var log = new ListLogger();

        PrefaultResult result = MmapPrefault.Run(regions, new PrefaultOptions { RamGate = RamGate.Always, Logger = log });

        Assert.Empty(result.Failures);
        Assert.Equal(2 * FileBytes, result.Bytes);
        Assert.True(log.At(LogLevel.Debug).Any(m => m.Contains("1 read-only huge-page view(s)", StringComparison.Ordinal)), string.Join(" | ", log.At(LogLevel.Debug)));
        Assert.Equal(before, MappingsOf(file.Path)); // same mappings, same permissions: nothing split or re-protected
        Assert.Equal(0, result.HugePageAdvisedBytes); // the engine's writable mappings are never advised
        foreach (PrefaultRegion r in regions)
        {
            Assert.Equal((int)(r.Length / Environment.SystemPageSize), PageMap.CountPresent(r.Address, r.Length));
        }

        Assert.Equal(RegionBytes.OfFile(file.Path, 0, FileBytes), RegionBytes.Of(regions[0]));
        Assert.Equal(RegionBytes.OfFile(file.Path, 0, FileBytes), RegionBytes.Of(regions[1]));
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData(4 * TestFile.MiB)] // dense: would get a view
    [InlineData(TestFile.MiB / 4)] // sparse: would be read exactly
    public void Prepare_LeavesWritableDeviceMappingsAlone(long selected)
    {
        // A private, writable view of /dev/zero is file-backed to /proc/self/maps (a path and an inode) but no file.
        using var zero = Mappings.NativeMmap.Map("/dev/zero", 0, 4 * TestFile.MiB, writable: true);
        MergedRegion[] merged = RegionSet.Merge([new PrefaultRegion(zero.Address, selected, "zero")], null);

        using FileStaging staging = Prepare(merged);

        Assert.Equal(0, staging.ViewCount);
        Assert.Equal(0, staging.ExactMappingCount);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithHugePageAdviceOff_MakesNoStagingView()
    {
        using TestFile file = TestFile.Create(FileBytes);
        using MappedFile engine = file.Map(MemoryMappedFileAccess.CopyOnWrite);
        var log = new ListLogger();

        PrefaultResult result = MmapPrefault.Run([engine.Region()],
            new PrefaultOptions { RamGate = RamGate.Always, IsHugePageAdviceEnabled = false, Logger = log });

        Assert.Equal(FileBytes, result.Bytes);
        Assert.DoesNotContain(log.At(LogLevel.Debug), m => m.Contains("1 read-only huge-page view(s)", StringComparison.Ordinal));
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData(MemoryMappedFileAccess.Read)]
    [InlineData(MemoryMappedFileAccess.CopyOnWrite)]
    public void Run_OverASparseSelection_ReadsTheSelectedPagesAndNoMore(MemoryMappedFileAccess access)
    {
        // 1 MiB selected in every 16 MiB of a cold file: the huge-page advice read 3 MiB more for each, and the kernel's
        // read-around 7 MiB more at read_ahead_kb 8192. Exact reads bring in the selected pages alone.
        const long Selected = TestFile.MiB, Every = 16 * TestFile.MiB;
        using TestFile file = TestFile.Create(128 * TestFile.MiB);
        using MappedFile view = file.Map(access);
        PrefaultRegion[] regions = Enumerable.Range(0, (int)(file.Length / Every))
            .Select(i => view.Region((i * Every) + 4096 + 100, Selected, $"tensor{i}")) // not page-aligned: a page at each edge
            .ToArray();

        PrefaultResult result = MmapPrefault.Run(regions, new PrefaultOptions { RamGate = RamGate.Always });

        long selectedPages = regions.Sum(r => Pages.Ceiling(r.Address + (nint)r.Length) - Pages.Floor(r.Address));
        Assert.Empty(result.Failures);
        Assert.Equal(regions.Sum(r => r.Length), result.Bytes);
        Assert.Equal(0, result.HugePageAdvisedBytes);
        Assert.Equal(selectedPages, Residency.OfFile(file.Path).ResidentBytes);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Prepare_OverSparseSelectionsOfManyFiles_HoldsNoDescriptor()
    {
        // One descriptor held per file for the whole run left an engine with 2,000 files under ulimit -n 1024 none of
        // its own, and Run itself threw (its metrics could not load an assembly). The exact reads go through the
        // engine's mappings instead.
        const int Files = 200;
        const long FileLength = 64 * 1024;
        var files = new List<TestFile>();
        var maps = new List<Mappings.NativeMmap>();
        try
        {
            var regions = new List<PrefaultRegion>();
            for (int i = 0; i < Files; i++)
            {
                files.Add(TestFile.Create(FileLength));
                maps.Add(Mappings.NativeMmap.Map(files[i].Path, 0, FileLength, writable: true)); // closes its descriptor
                regions.Add(new PrefaultRegion(maps[i].Address, 4096, $"t{i}"));
            }

            MergedRegion[] merged = RegionSet.Merge([.. regions], null);
            int before = Directory.GetFiles("/proc/self/fd").Length;

            using FileStaging staging = Prepare(merged);

            Assert.Equal(Files, staging.ExactMappingCount);
            Assert.InRange(Directory.GetFiles("/proc/self/fd").Length - before, int.MinValue, Files / 2); // others' tests open files too
            staging.Read(merged[0].Start, merged[0].End);
            Assert.Equal(4096, Residency.OfFile(files[0].Path).ResidentBytes);
        }
        finally
        {
            maps.ForEach(m => m.Dispose());
            files.ForEach(f => f.Dispose());
        }
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData(3, 1)] // three quarters of every 4 MiB: one long run each (huge-page advice read 84 MiB for 48 before)
    [InlineData(1, 3)] // a quarter: sparse
    public void Run_OverRunsOfAdjacentTensors_ReadsTheRunsAndNoNeighbours(int selectedMiB, int skippedMiB)
    {
        // Runs of adjacent 256 KiB tensors, each run followed by unselected ones (an expert selection of a GGUF): read
        // in the device's read-ahead windows, exactly, so nothing around a run comes in, whatever read_ahead_kb says.
        const long Tensor = TestFile.MiB / 4;
        using TestFile file = TestFile.Create(64 * TestFile.MiB);
        using MappedFile view = file.Map();
        var regions = new List<PrefaultRegion>();
        long period = (selectedMiB + skippedMiB) * TestFile.MiB;
        for (long at = 0; at + period <= file.Length; at += period)
        {
            for (long t = 0; t < selectedMiB * TestFile.MiB; t += Tensor)
            {
                regions.Add(view.Region(at + t, Tensor, $"blk.{at / period}.t{t / Tensor}"));
            }
        }

        PrefaultResult result = MmapPrefault.Run(regions, new PrefaultOptions { RamGate = RamGate.Always });

        long selected = regions.Sum(r => r.Length);
        Assert.Empty(result.Failures);
        Assert.Equal(selected, result.Bytes);
        Assert.Equal(0, result.HugePageAdvisedBytes);
        Assert.Contains("read ahead in", result.ReadAheadDescription, StringComparison.Ordinal);
        Assert.Equal(selected, Residency.OfFile(file.Path).ResidentBytes);
    }

    /// <summary>
    /// Under <see cref="FolioPolicy.ReadAhead"/> nothing is staged and the populate reads a mapping covered whole
    /// through the device's own read-ahead; on a VM that reports free pages a set this small is swept in chunks of the
    /// device's read-ahead where that splits it, and the description says so.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Prepare_ReadAhead_StagesNothing_AndThePopulateReadsTheMappingWhole()
    {
        using TestFile file = TestFile.Create(FileBytes);
        using MappedFile view = file.Map(MemoryMappedFileAccess.Read);
        MergedRegion[] merged = RegionSet.Merge([view.Region()], null);

        using FileStaging staging = Prepare(merged, FolioPolicy.ReadAhead);
        staging.Read(merged[0].Start, merged[0].End);
        Assert.Equal(0, Residency.OfFile(file.Path).ResidentBytes);
        unsafe
        {
            Assert.Equal(0, global::Interop.Libc.Madvise((void*)merged[0].Start, (nuint)(merged[0].End - merged[0].Start), global::Interop.LinuxConstants.MADV_POPULATE_READ));
        }

        Assert.Equal((0L, 0, 0L, FileBytes), (staging.HugePageAdvisedBytes, staging.ExactMappingCount, staging.WindowedBytes, staging.KernelReadAheadBytes));
        Assert.DoesNotContain("hg", Platform.HugePageAdviceTests.VmFlags(merged[0].Start));
        Assert.Contains("the device's own read-ahead", staging.Describe(), StringComparison.Ordinal);
        Assert.Equal(FileBytes, Residency.OfFile(file.Path).ResidentBytes);

        long expected = ExpectedChunk(file.Path, windows: false);
        var reported = new ReadAheadPopulate(staging, freePagesReported: true);
        Assert.Equal(expected, reported.ChunkSizeFor(PrefaultOptions.DefaultChunkSize, FileBytes, threads: 8));
        Assert.Equal(PrefaultOptions.DefaultChunkSize, new ReadAheadPopulate(staging, freePagesReported: false).ChunkSizeFor(PrefaultOptions.DefaultChunkSize, FileBytes, 8));
        Assert.Equal(expected < FileBytes, staging.Describe(FileStaging.FinerChunk(expected, PrefaultOptions.DefaultChunkSize, FileBytes)).Contains($"swept in {Sizes.Format(expected)} chunks, not 32.00 MiB", StringComparison.Ordinal));
    }

    /// <summary>Under <see cref="FolioPolicy.Windows"/> a mapping covered whole is read window by window (every window, not only the first) before its populate.</summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Prepare_Windows_ReadsEveryWindowOfAMappingCoveredWhole()
    {
        using TestFile file = TestFile.Create(FileBytes);
        using MappedFile view = file.Map(MemoryMappedFileAccess.Read);
        MergedRegion[] merged = RegionSet.Merge([view.Region()], null);

        using FileStaging staging = Prepare(merged, FolioPolicy.Windows);
        staging.Read(merged[0].Start, merged[0].End);

        Assert.Equal((1, FileBytes, 0L, 0L), (staging.ExactMappingCount, staging.WindowedBytes, staging.KernelReadAheadBytes, staging.HugePageAdvisedBytes));
        Assert.Contains("read ahead in", staging.Describe(), StringComparison.Ordinal);
        Assert.Equal(FileBytes, Residency.OfFile(file.Path).ResidentBytes);
    }

    /// <summary>
    /// A trial's huge-page staging advises nothing until <see cref="FileStaging.Commit"/>, then the whole mapping;
    /// a unit's advice splits the mapping and the whole advice merges it back.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.HugePages))]
    public void Prepare_HugePages_Deferred_AdvisesOnlyItsUnits_UntilCommit()
    {
        using TestFile file = TestFile.Create(FileBytes);
        using MappedFile view = file.Map(MemoryMappedFileAccess.Read);
        MergedRegion[] merged = RegionSet.Merge([view.Region()], null);
        int before = MappingsOf(file.Path).Split('\n').Length;

        using FileStaging staging = FileStaging.Prepare(merged, ProcMaps.ReadFor(merged), PrefaultMethod.Populate, FolioPolicy.HugePages, somethingToRead: true,
            Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance, "test", deferAdvice: true);
        Assert.Equal(0, staging.HugePageAdvisedBytes);
        Assert.Equal(FileBytes, staging.TrialableBytes);
        Assert.DoesNotContain("hg", Platform.HugePageAdviceTests.VmFlags(merged[0].Start));

        nint unit = (merged[0].Start + (nint)MechanismTrial.UnitBytes - 1) & ~((nint)MechanismTrial.UnitBytes - 1);
        staging.StageUnit(unit, unit + (nint)MechanismTrial.UnitBytes);
        Assert.Contains("hg", Platform.HugePageAdviceTests.VmFlags(unit));
        Assert.True(MappingsOf(file.Path).Split('\n').Length > before, "the unit's advice splits the mapping");

        staging.Commit();
        Assert.Equal(FileBytes, staging.HugePageAdvisedBytes);
        Assert.Contains("hg", Platform.HugePageAdviceTests.VmFlags(merged[0].Start));
        Assert.Equal(before, MappingsOf(file.Path).Split('\n').Length);
    }

    /// <summary>
    /// Where the populate reads through the kernel's read-ahead at the default chunk size, each thread gets four chunks
    /// or more, whole 2 MiB each and no smaller than the read-ahead; anything else keeps the option's chunk size.
    /// </summary>
    [Theory]
    [InlineData(256, 8192, 256, 8, 8)]       // a small file: 8 MiB chunks, where 32 MiB ones loaded it in 1.8x the time
    [InlineData(512, 8192, 512, 8, 16)]
    [InlineData(1024, 8192, 1024, 8, 32)]    // four a thread already
    [InlineData(2048, 8192, 2048, 8, 32)]
    [InlineData(256, 8192, 256, 2, 32)]      // two threads: four 32 MiB chunks each
    [InlineData(256, 128, 256, 8, 8)]
    [InlineData(64, 128, 64, 8, 2)]          // never under 2 MiB
    [InlineData(64, 3072, 64, 8, 4)]         // nor under the read-ahead, rounded up to 2 MiB
    [InlineData(64, 65536, 64, 8, 32)]       // nor over the option's
    [InlineData(256, 8192, 0, 8, 32)]        // nothing through the kernel's read-ahead (windows, the advice)
    [InlineData(300, 8192, 300, 8, 8)]       // rounded down to whole 2 MiB (9.4 MiB), then the read-ahead's floor
    [InlineData(100, 128, 100, 8, 2)]        // 3.1 MiB a chunk rounds down to 2 MiB
    [InlineData(16, 128, 16, 8, 2)]          // under 2 MiB a chunk: 2 MiB
    [InlineData(512, 8192, 512, 64, 16)]     // no more than eight threads counted: as measured
    [InlineData(2048, 8192, 2048, 64, 32)]   // so from 1 GiB on every machine keeps 32 MiB
    [InlineData(256, 8192, 256, 0, 32)]      // nothing to divide by
    [InlineData(0, 8192, 256, 8, 32)]
    [InlineData(64, 0, 64, 8, 2)]            // no read-ahead known: 2 MiB floor
    public void ChunkSizeFor_GivesEachThreadFourChunks_OnlyThroughTheKernelsReadAhead(long bytesMiB, long readAheadKiB, long kernelMiB, int threads, long expectedMiB)
    {
        Assert.Equal(expectedMiB * TestFile.MiB,
            FileStaging.ChunkSizeFor(PrefaultOptions.DefaultChunkSize, kernelMiB * TestFile.MiB, readAheadKiB * 1024, bytesMiB * TestFile.MiB, threads));
    }

    /// <summary>Any chunk size but the default 32 MiB is kept (the option cannot tell an explicit 32 MiB from the default).</summary>
    [Fact]
    public void ChunkSizeFor_KeepsAnyChunkSizeButTheDefault()
    {
        Assert.Equal(16 * TestFile.MiB, FileStaging.ChunkSizeFor(16 * TestFile.MiB, 256 * TestFile.MiB, 8192 * 1024, 256 * TestFile.MiB, 8));
        Assert.Equal(64 * TestFile.MiB, FileStaging.ChunkSizeFor(64 * TestFile.MiB, 256 * TestFile.MiB, 128 * 1024, 256 * TestFile.MiB, 8));
    }

    /// <summary>Beside the engine's init a set too small for a trial takes Start's first guess, the huge-page advice, on any machine.</summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.HugePages))]
    public async Task Start_OverASetTooSmallForATrial_TakesTheHugePageAdvice()
    {
        using TestFile file = TestFile.Create(FileBytes);
        using MappedFile view = file.Map(MemoryMappedFileAccess.Read);

        await using PrefaultHandle handle = MmapPrefault.Start([view.Region()], new PrefaultOptions { RamGate = RamGate.Always });
        PrefaultResult result = await handle.Completion;

        Assert.Equal(FileBytes, result.HugePageAdvisedBytes);
        Assert.StartsWith("huge-page populate", result.MechanismDescription, StringComparison.Ordinal);
        Assert.DoesNotContain("trial", result.MechanismDescription, StringComparison.Ordinal);
        Assert.Equal(100.0, Residency.OfFile(file.Path).Percent);
    }

    /// <summary>
    /// The chunk the rule gives the 16 MiB test file on a VM that reports free pages: the option's where it is read in
    /// windows, else the device's read-ahead as the library reads it, whole 2 MiB, at most 32 MiB.
    /// </summary>
    private static long ExpectedChunk(string path, bool windows)
    {
        if (windows)
        {
            return PrefaultOptions.DefaultChunkSize;
        }

        _ = ReadAheadWindow.For(FileStatus.TryOf(path)!.Value.Device, out long readAhead);
        return FileStaging.ChunkSizeFor(PrefaultOptions.DefaultChunkSize, FileBytes, readAhead, FileBytes, threads: 8);
    }

    private static FileStaging Prepare(MergedRegion[] merged, FolioPolicy policy = FolioPolicy.HugePages) =>
        FileStaging.Prepare(merged, ProcMaps.ReadFor(merged), PrefaultMethod.Populate, policy, somethingToRead: true,
            Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance, "test");

    /// <summary>Whether a mapping of <paramref name="path"/> covered whole is read in windows on its device where the rule applies (its sysfs figures).</summary>
    private static bool WindowsOnTheDeviceOf(string path)
    {
        ulong device = FileStatus.TryOf(path)!.Value.Device;
        return ReadAheadWindow.ReadsMoreThanReadAhead(ReadAheadWindow.For(device, out long readAhead), readAhead);
    }

    /// <summary>The lines of /proc/self/maps that map <paramref name="path"/>: address range, permissions and offset.</summary>
    private static string MappingsOf(string path) =>
        string.Join('\n', File.ReadLines("/proc/self/maps").Where(l => l.EndsWith(path, StringComparison.Ordinal)));
}
