using System.IO.MemoryMappedFiles;
using Microsoft.Extensions.Logging;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// Writable file mappings (an engine's own copy-on-write views, as ONNX Runtime makes one per initializer) are read
/// through the library's own read-only view first, then populated; the engine's mappings are never split, advised
/// or changed.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class StagingViewsTests
{
    private const long FileBytes = 16 * TestFile.MiB;

    [HugePageFact]
    public void Populate_FillsThePageCacheWithoutMappingTheEngineRange()
    {
        using TestFile file = TestFile.Create(FileBytes);
        using MappedFile engine = file.Map(MemoryMappedFileAccess.CopyOnWrite);
        PrefaultRegion region = engine.Region();
        MergedRegion[] merged = RegionSet.Merge([region], null);

        using StagingViews staging = StagingViews.Create(merged, ProcMaps.ReadFor(merged));
        staging.Populate(region.Address, region.Address + (nint)region.Length);

        Assert.Equal(1, staging.FileCount);
        Assert.Equal(FileBytes, staging.Bytes);
        Assert.Equal(100.0, Residency.OfFile(file.Path).Percent);
        Assert.Equal(0, PageMap.CountPresent(region.Address, region.Length));
    }

    [LinuxFact]
    public void Create_LeavesReadOnlyMappingsToTheHugePageAdvice()
    {
        using TestFile file = TestFile.Create(FileBytes);
        using MappedFile view = file.Map(MemoryMappedFileAccess.Read);
        MergedRegion[] merged = RegionSet.Merge([view.Region()], null);

        using StagingViews staging = StagingViews.Create(merged, ProcMaps.ReadFor(merged));

        Assert.True(staging.IsEmpty);
    }

    [HugePageFact]
    public void Run_OverCopyOnWriteMappings_StagesThem_AndLeavesThemWhole()
    {
        using TestFile file = TestFile.Create(FileBytes);
        using MappedFile first = file.Map(MemoryMappedFileAccess.CopyOnWrite);
        using MappedFile second = file.Map(MemoryMappedFileAccess.CopyOnWrite);
        PrefaultRegion[] regions = [first.Region(0, FileBytes / 2, "a"), second.Region(FileBytes / 2, FileBytes / 2, "b")];
        string before = MappingsOf(file.Path);
        var log = new ListLogger();

        PrefaultResult result = MmapPrefault.Run(regions, PrefaultOptions.Default with { RamGate = RamGate.Always, Logger = log });

        Assert.Empty(result.Failures);
        Assert.Equal(FileBytes, result.Bytes);
        Assert.Contains(log.At(LogLevel.Debug), m => m.Contains("huge-page view(s)", StringComparison.Ordinal));
        Assert.Equal(before, MappingsOf(file.Path)); // same mappings, same permissions: nothing split or re-protected
        Assert.Equal(0, result.HugePageAdvisedBytes); // the engine's writable mappings are never advised
        foreach (PrefaultRegion r in regions)
        {
            Assert.Equal((int)(r.Length / Environment.SystemPageSize), PageMap.CountPresent(r.Address, r.Length));
        }

        Assert.Equal(RegionBytes.OfFile(file.Path, 0, FileBytes / 2), RegionBytes.Of(regions[0]));
        Assert.Equal(RegionBytes.OfFile(file.Path, FileBytes / 2, FileBytes / 2), RegionBytes.Of(regions[1]));
    }

    [HugePageFact]
    public void Create_LeavesWritableDeviceMappingsAlone()
    {
        // A private, writable view of /dev/zero is file-backed to /proc/self/maps (a path and an inode) but no file.
        using var zero = Mappings.NativeMmap.Map("/dev/zero", 0, 4 * TestFile.MiB, writable: true);
        MergedRegion[] merged = RegionSet.Merge([new PrefaultRegion(zero.Address, zero.Length, "zero")], null);

        using StagingViews staging = StagingViews.Create(merged, ProcMaps.ReadFor(merged));

        Assert.True(staging.IsEmpty);
    }

    [LinuxFact]
    public void Run_WithHugePageAdviceOff_MakesNoStagingView()
    {
        using TestFile file = TestFile.Create(FileBytes);
        using MappedFile engine = file.Map(MemoryMappedFileAccess.CopyOnWrite);
        var log = new ListLogger();

        PrefaultResult result = MmapPrefault.Run([engine.Region()],
            PrefaultOptions.Default with { RamGate = RamGate.Always, IsHugePageAdviceEnabled = false, Logger = log });

        Assert.Equal(FileBytes, result.Bytes);
        Assert.DoesNotContain(log.At(LogLevel.Debug), m => m.Contains("huge-page view(s)", StringComparison.Ordinal));
    }

    /// <summary>The lines of /proc/self/maps that map <paramref name="path"/>: address range, permissions and offset.</summary>
    private static string MappingsOf(string path) =>
        string.Join('\n', File.ReadLines("/proc/self/maps").Where(l => l.EndsWith(path, StringComparison.Ordinal)));
}
