namespace Sharpi.Prefault.Tests.Regions;

public sealed class RegionSetTests
{
    [Fact]
    public void Merge_DropsEmptyRegions()
    {
        MergedRegion[] merged = RegionSet.Merge([new(0x1000, 0), new(0, 100), new(0x2000, 16, "a")]);

        MergedRegion only = Assert.Single(merged);
        Assert.Equal("a", only.Name);
    }

    [Fact]
    public void Merge_CountsTheSameTensorPassedTwiceOnce()
    {
        MergedRegion[] merged = RegionSet.Merge([new(0x10000, 4096, "w"), new(0x10000, 4096, "w")]);

        Assert.Equal(4096, RegionSet.TotalBytes(merged));
    }

    [Fact]
    public void Merge_JoinsOverlaps_AndKeepsTheCallersOrder()
    {
        // Given order: C (hot), A, B overlapping A, D. By address: A=0x1000.., B overlaps A, C=0x9000, D=0x5000.
        MergedRegion[] merged = RegionSet.Merge(
        [
            new(0x9000, 0x1000, "C"),
            new(0x1000, 0x2000, "A"),
            new(0x2000, 0x2000, "B"),
            new(0x5000, 0x1000, "D"),
        ]);

        Assert.Equal(["C", "A", "D"], merged.Select(m => m.Name));
        Assert.Equal((nint)0x1000, merged[1].Start);
        Assert.Equal((nint)0x4000, merged[1].End);
        Assert.Equal(0x1000 + 0x3000 + 0x1000, RegionSet.TotalBytes(merged));
    }

    [Fact]
    public void Merge_KeepsAdjacentRegionsApart_SoAPartialPrefaultCanStopBetweenThem()
    {
        MergedRegion[] merged = RegionSet.Merge([new(0x1000, 0x1000, "a"), new(0x2000, 0x1000, "b")]);

        Assert.Equal(2, merged.Length);
    }

    [Fact]
    public void Merge_OfManyUnsortedOverlappingRegions_CoversTheirUnion()
    {
        var random = new Random(42);
        var regions = new PrefaultRegion[10_000];
        bool[] covered = new bool[1 << 20];
        for (int i = 0; i < regions.Length; i++)
        {
            int start = random.Next(0, (1 << 20) - 512);
            int length = random.Next(1, 512);
            regions[i] = new PrefaultRegion(0x100000 + start, length);
            Array.Fill(covered, true, start, length);
        }

        MergedRegion[] merged = RegionSet.Merge(regions);

        Assert.Equal(covered.Count(c => c), RegionSet.TotalBytes(merged));
        MergedRegion[] byAddress = [.. merged.OrderBy(m => m.Start)];
        for (int i = 1; i < byAddress.Length; i++)
        {
            Assert.True(byAddress[i].Start >= byAddress[i - 1].End, "merged ranges must be disjoint");
        }
    }

    [Fact]
    public void Merge_TellsWhichMergedRangeHoldsEachRegion()
    {
        PrefaultRegion[] regions =
        [
            new(0x5000, 0x1000, "c"),     // 0: alone
            new(0x1000, 0x2000, "a"),     // 1: overlaps 2
            new(0x2000, 0x2000, "b"),     // 2
            new(0x9000, 0, "empty"),      // 3
            new(0x1800, 0x100, "inside"), // 4: inside 1
        ];
        int[] memberOf = new int[regions.Length];

        MergedRegion[] merged = RegionSet.Merge(regions, memberOf);

        Assert.Equal([0, 1], merged.Select(m => m.Order));
        Assert.Equal([0, 1, 1, -1, 1], memberOf);
    }

    [Fact]
    public void Validate_WithNegativeLength_ThrowsNamingTheRegion()
    {
        var ex = Assert.Throws<ArgumentOutOfRangeException>(() => RegionSet.Validate([new(0x1000, 1), new(0x2000, -5)], "regions"));

        Assert.Contains("Region 1", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Validate_WithRangePastTheAddressSpace_Throws()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => RegionSet.Validate([new(-4096, 8192)], "regions"));
    }
}
