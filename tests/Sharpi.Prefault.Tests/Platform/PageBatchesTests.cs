namespace Sharpi.Prefault.Tests.Platform;

public sealed class PageBatchesTests
{
    private static readonly nint Page = Environment.SystemPageSize;

    // Walks like Mincore, WorkingSet and ProcPagemap do, asking isSet of each page.
    private static (long Bytes, List<(nint At, int Pages)> Batches) Walk(nint start, nint end, int batchPages, Func<nint, bool> isSet)
    {
        var walked = new List<(nint, int)>();
        var batches = new PageBatches(start, end, batchPages);
        while (batches.Next(out nint at, out int pages))
        {
            walked.Add((at, pages));
            long set = 0;
            for (int i = 0; i < pages; i++)
            {
                set += isSet(at + (i * Page)) ? 1 : 0;
            }

            batches.Add(set, isSet(at), isSet(at + ((pages - 1) * Page)));
        }

        return (batches.Bytes, walked);
    }

    [Fact]
    public void Walk_OfAnUnalignedRange_IsWholePagesInBatches()
    {
        nint start = (16 * Page) + 100;
        nint end = (21 * Page) + 7;

        (_, List<(nint At, int Pages)> batches) = Walk(start, end, 2, _ => true);

        Assert.Equal([(16 * Page, 2), (18 * Page, 2), (20 * Page, 2)], batches);
    }

    [Fact]
    public void Bytes_OfAnUnalignedRangeOnSetPages_AreOnlyTheRangesBytes()
    {
        nint start = (16 * Page) + 100;
        nint end = (21 * Page) + 7;

        Assert.Equal(end - start, Walk(start, end, 2, _ => true).Bytes);
    }

    [Fact]
    public void Bytes_WhereOnlyTheEdgePagesAreSet_AreTheRangesBytesOnThem()
    {
        nint start = (16 * Page) + 100;
        nint end = (21 * Page) + 7;

        long bytes = Walk(start, end, 4, at => at == 16 * Page || at == 21 * Page).Bytes;

        Assert.Equal((Page - 100) + 7, bytes);
    }

    [Fact]
    public void Bytes_OfARangeInsideOnePage_AreItsLength()
    {
        Assert.Equal(50, Walk((8 * Page) + 10, (8 * Page) + 60, 16, _ => true).Bytes);
    }

    [Fact]
    public void Walk_OfAnEmptyRange_HasNoBatch()
    {
        (long bytes, List<(nint At, int Pages)> batches) = Walk(8 * Page, 8 * Page, 16, _ => true);

        Assert.Equal(0, bytes);
        Assert.Empty(batches);
    }
}
