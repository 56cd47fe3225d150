namespace Sharpi.Prefault.Tests.Regions;

/// <summary>
/// Rounding outward for a lock: neighbours sharing a page group into one range, split by member for naming failures
/// (a member wholly inside an earlier member's pages shares that piece and its name).
/// </summary>
public sealed class PageRangesTests
{
    private static readonly nint Page = Environment.SystemPageSize;
    private static readonly nint Base = unchecked((nint)0x7f0000000000);

    [Fact]
    public void Outward_GroupsNeighboursSharingAPage_InTheCallersOrder_AndSplitsThemByMember()
    {
        MergedRegion[] merged =
        [
            new(Base + 4 * Page, Base + 5 * Page, "alone", 0),
            new(Base + 100, Base + Page + 100, "a", 1),
            new(Base + Page + 100, Base + Page + 200, "b", 2),
            new(Base + Page + 200, Base + 3 * Page, "c", 3),
        ];

        PageGroup[] groups = PageRanges.Outward(merged, out MergedRegion[] pieces);

        Assert.Equal(2, groups.Length);
        Assert.Equal(("alone", Base + 4 * Page, Base + 5 * Page), (groups[0].Range.Name, groups[0].Range.Start, groups[0].Range.End));
        Assert.Equal(("a", Base, Base + 3 * Page), (groups[1].Range.Name, groups[1].Range.Start, groups[1].Range.End));
        MergedRegion[] members = pieces.AsSpan(groups[1].FirstPiece, groups[1].PieceCount).ToArray();
        Assert.Equal(
            [("a, b", Base, Base + 2 * Page), ("c", Base + 2 * Page, Base + 3 * Page)],
            members.Select(p => (p.Name, p.Start, p.End)).ToArray());
    }

    [Fact]
    public void Outward_OfAMemberWhollyInsideItsNeighboursPage_NamesBothOnThatPiece()
    {
        PageGroup[] groups = PageRanges.Outward(
            [new(Base, Base + 100, "a", 0), new(Base + 100, Base + 200, "b", 1)], out MergedRegion[] pieces);

        PageGroup group = Assert.Single(groups);
        Assert.Equal(1, group.PieceCount);
        Assert.Equal("a, b", pieces[group.FirstPiece].Name);
    }
}
