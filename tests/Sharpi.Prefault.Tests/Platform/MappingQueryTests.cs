using System.Runtime.Versioning;
using Sharpi.Prefault.Tests.Mappings;

namespace Sharpi.Prefault.Tests.Platform;

[SupportedOSPlatform("linux")]
public sealed class MappingQueryTests
{
    private static readonly long Page = Environment.SystemPageSize;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.ProcmapQuery))]
    public void Read_WithTheQuery_FindsWhatProcSelfMapsSays()
    {
        using TestFile file = TestFile.Create(TestFile.MiB, evict: false);
        using MappedFile map = file.Map();

        MappingSnapshot queried = MappingQuery.Read([Merged(map.Region())]);

        Assert.True(queried.FromQuery);
        ProcMapEntry found = Assert.Single(queried.Entries);
        Assert.Equal(Assert.Single(ProcMaps.ReadSelf(map.Region().Address, map.Region().End)), found);
        Assert.Equal(file.Path, found.Path);
        Assert.False(Assert.Single(queried.IsHugetlb));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Read_WithoutTheQuery_FindsWhatProcSelfMapsSays()
    {
        using TestFile file = TestFile.Create(TestFile.MiB, evict: false);
        using MappedFile map = file.Map();

        MappingSnapshot walked = MappingQuery.Read([Merged(map.Region())], useQuery: false);

        Assert.False(walked.FromQuery);
        Assert.Equal(ProcMaps.ReadSelf(map.Region().Address, map.Region().End), walked.Entries);
        Assert.False(Assert.Single(walked.IsHugetlb));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.ProcmapQuery))]
    public void Read_OfRangesInTwoMappingsWithAGap_FindsBothAndNothingBetween()
    {
        using TestFile file = TestFile.Create(4 * Page, evict: false);
        using NativeMmap first = NativeMmap.Map(file.Path, 0, 4 * Page, shared: true);
        using NativeMmap second = NativeMmap.Map(file.Path, 0, 4 * Page);
        MergedRegion[] ranges = [.. new[] { Merged(new PrefaultRegion(first.Address, first.Length)), Merged(new PrefaultRegion(second.Address, second.Length)) }
            .OrderBy(r => (ulong)r.Start)];

        MappingSnapshot queried = MappingQuery.Read(ranges);
        MappingSnapshot walked = MappingQuery.Read(ranges, useQuery: false);

        Assert.Equal(2, queried.Entries.Length);
        Assert.Contains(queried.Entries, e => e.Start == first.Address && e.Shared && !e.Writable);
        Assert.Contains(queried.Entries, e => e.Start == second.Address && !e.Shared);
        // The walk reads every line from the lowest to the highest address: the two, and whatever lies between them.
        Assert.All(queried.Entries, e => Assert.Contains(e, walked.Entries));
    }

    private static MergedRegion Merged(PrefaultRegion r) => Assert.Single(RegionSet.Merge([r]));
}
