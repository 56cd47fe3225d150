namespace Sharpi.Prefault.Tests.Reclaim;

/// <summary>The reclaim decision as a pure function of the regions, a synthetic smaps snapshot and the held locks.</summary>
public sealed class ReclaimPlanTests
{
    private static readonly nint Page = Environment.SystemPageSize;
    private static readonly nint Base = unchecked((nint)0x7f0000000000);

    private static ProcMapEntry FileMap(nint start, nint end, bool writable = false, bool shared = true) =>
        new(start, end, true, writable, shared, 0, 42, "/models/weights.gguf");

    private static SmapsSnapshot Snapshot(params (ProcMapEntry Map, SmapsFigures Figures)[] entries) =>
        new([.. entries.Select(e => e.Map)], [.. entries.Select(e => e.Figures)]);

    private static MergedRegion Region(nint start, nint end, string name = "t") => new(start, end, name, 0);

    [Fact]
    public void Build_OfAReadOnlyFileView_ReleasesTheWholePagesInside()
    {
        SmapsSnapshot smaps = Snapshot((FileMap(Base, Base + 16 * Page), default));

        ReclaimPlan plan = ReclaimPlan.Build([Region(Base + 10, Base + 4 * Page + 10)], smaps, []);

        Assert.Empty(plan.Refusals);
        MergedRegion release = Assert.Single(plan.Release);
        Assert.Equal(Base + Page, release.Start);
        Assert.Equal(Base + 4 * Page, release.End);
    }

    [Fact]
    public void Build_OverAnonymousMemory_Refuses()
    {
        var anon = new ProcMapEntry(Base, Base + 4 * Page, true, true, false, 0, 0, string.Empty);

        ReclaimPlan plan = ReclaimPlan.Build([Region(Base, Base + Page, "kv")], Snapshot((anon, default)), []);

        Assert.Contains("kv", Assert.Single(plan.Refusals), StringComparison.Ordinal);
        Assert.Contains("anonymous memory", plan.Refusals[0], StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Swap:                  4 kB\nSwapPss:               4 kB")]
    [InlineData("Swap:                  0 kB\nSwapPss:               4 kB")]
    public void Build_OverACopyOnWriteViewWhoseWrittenPagesAreInSwap_Refuses(string swapLines)
    {
        SmapsSnapshot smaps = ProcMaps.ParseSmaps($"""
            {Base:x}-{Base + 4 * Page:x} rw-p 00000000 fd:01 42                         /models/weights.gguf
            Rss:                   0 kB
            Anonymous:             0 kB
            {swapLines}
            VmFlags: rd wr mr mw me ac
            """);

        ReclaimPlan plan = ReclaimPlan.Build([Region(Base, Base + Page, "patched")], smaps, []);

        Assert.Equal(4096, smaps.Figures[0].SwapBytes);
        string refusal = Assert.Single(plan.Refusals);
        Assert.Contains("patched", refusal, StringComparison.Ordinal);
        Assert.Contains("swapped out", refusal, StringComparison.Ordinal);
    }

    [Fact]
    public void Build_OverAWritableSharedView_Refuses()
    {
        SmapsSnapshot smaps = Snapshot((FileMap(Base, Base + 4 * Page, writable: true, shared: true), default));

        ReclaimPlan plan = ReclaimPlan.Build([Region(Base, Base + Page)], smaps, []);

        Assert.Contains("writable shared view", Assert.Single(plan.Refusals), StringComparison.Ordinal);
    }

    [Fact]
    public void Build_OverACopyOnWriteView_Refuses_WrittenOrNot()
    {
        // Unwritten too: a write landing between the smaps check and the madvise would be thrown away.
        ProcMapEntry cow = FileMap(Base, Base + 4 * Page, writable: true, shared: false);

        ReclaimPlan written = ReclaimPlan.Build([Region(Base, Base + Page)], Snapshot((cow, new SmapsFigures(Page, Page, 0, false))), []);
        ReclaimPlan clean = ReclaimPlan.Build([Region(Base, Base + Page)], Snapshot((cow, new SmapsFigures(Page, 0, 0, false))), []);

        Assert.Contains("copy-on-write", Assert.Single(written.Refusals), StringComparison.Ordinal);
        Assert.Contains("written to", written.Refusals[0], StringComparison.Ordinal);
        Assert.Contains("copy-on-write", Assert.Single(clean.Refusals), StringComparison.Ordinal);
        Assert.Empty(clean.Release);
    }

    [Fact]
    public void Build_OverPrivateWrittenHugetlbMemory_Refuses()
    {
        // The entry that passed before: a path that looks like a file, an inode, and neither Anonymous nor Swap.
        SmapsSnapshot smaps = ProcMaps.ParseSmaps($"""
            {Base:x}-{Base + 512 * Page:x} rw-p 00000000 00:0f 1234                       /anon_hugepage (deleted)
            Rss:                   0 kB
            Anonymous:             0 kB
            Private_Hugetlb:    2048 kB
            Swap:                  0 kB
            VmFlags: rd wr mr mw me de ht
            """);

        ReclaimPlan plan = ReclaimPlan.Build([Region(Base, Base + 512 * Page, "huge")], smaps, []);

        Assert.True(smaps.Figures[0].IsHugetlb);
        Assert.Contains("hugetlb", Assert.Single(plan.Refusals), StringComparison.Ordinal);
    }

    [Fact]
    public void Build_OverAReadOnlySharedHugetlbMapping_Refuses_ByItsFlagAlone()
    {
        SmapsSnapshot smaps = ProcMaps.ParseSmaps($"""
            {Base:x}-{Base + 512 * Page:x} r--s 00000000 00:10 77                         /dev/hugepages/weights
            Rss:                   0 kB
            Shared_Hugetlb:        0 kB
            VmFlags: rd sh mr mw me ms ht
            """);

        ReclaimPlan plan = ReclaimPlan.Build([Region(Base, Base + 512 * Page)], smaps, []);

        Assert.Contains("hugetlb", Assert.Single(plan.Refusals), StringComparison.Ordinal);
    }

    [Fact]
    public void Build_OverAGapBetweenMappings_RefusesTheGap()
    {
        SmapsSnapshot smaps = Snapshot((FileMap(Base, Base + Page), default), (FileMap(Base + 2 * Page, Base + 3 * Page), default));

        ReclaimPlan plan = ReclaimPlan.Build([Region(Base, Base + 3 * Page)], smaps, []);

        Assert.Contains($"0x{Base + Page:X}-0x{Base + 2 * Page:X} is not mapped", Assert.Single(plan.Refusals), StringComparison.Ordinal);
    }

    [Fact]
    public void Build_OverAMappingLockedOutsideTheLibrary_SkipsIt()
    {
        SmapsSnapshot smaps = Snapshot((FileMap(Base, Base + 4 * Page), new SmapsFigures(0, 0, 0, LockedFlag: true)));

        ReclaimPlan plan = ReclaimPlan.Build([Region(Base, Base + 4 * Page)], smaps, []);

        Assert.Empty(plan.Release);
        Assert.Contains("locked", Assert.Single(plan.Skipped).Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Build_AroundAHeldLock_ReleasesBothSides_AndSkipsTheHeldPages()
    {
        SmapsSnapshot smaps = Snapshot((FileMap(Base, Base + 8 * Page), default));

        ReclaimPlan plan = ReclaimPlan.Build([Region(Base, Base + 8 * Page)], smaps, [(Base + 2 * Page, Base + 3 * Page)]);

        Assert.Equal([(Base, Base + 2 * Page), (Base + 3 * Page, Base + 8 * Page)], plan.Release.Select(r => (r.Start, r.End)));
        RegionFailure skipped = Assert.Single(plan.Skipped);
        Assert.Equal(Base + 2 * Page, skipped.Address);
        Assert.Equal(Page, skipped.Length);
    }

    [Fact]
    public void Build_OfTouchingRegions_ReleasesThePageTheyShare()
    {
        SmapsSnapshot smaps = Snapshot((FileMap(Base, Base + 8 * Page), default));

        ReclaimPlan plan = ReclaimPlan.Build([Region(Base, Base + Page + 7, "a"), Region(Base + Page + 7, Base + 3 * Page, "b")], smaps, []);

        MergedRegion release = Assert.Single(plan.Release);
        Assert.Equal((Base, Base + 3 * Page), (release.Start, release.End));
    }

    [Fact]
    public void Build_WithSeveralRefusals_ReportsEach()
    {
        var anon = new ProcMapEntry(Base + 4 * Page, Base + 8 * Page, true, true, false, 0, 0, "[heap]");
        SmapsSnapshot smaps = Snapshot((FileMap(Base, Base + 4 * Page, writable: true), default), (anon, default));

        ReclaimPlan plan = ReclaimPlan.Build([Region(Base, Base + Page, "a"), Region(Base + 5 * Page, Base + 6 * Page, "b")], smaps, []);

        Assert.Equal(2, plan.Refusals.Count);
    }
}
