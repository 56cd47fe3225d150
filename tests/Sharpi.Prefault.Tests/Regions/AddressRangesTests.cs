namespace Sharpi.Prefault.Tests.Regions;

/// <summary>Both searches find the first range ending above an address, as a scan from the start does.</summary>
public sealed class AddressRangesTests
{
    [Fact]
    public void FirstEndingAfter_OverTuples_AgreesWithAScan_AtEveryEdge()
    {
        (nint Start, nint End)[] ranges = [(0x1000, 0x3000), (0x3000, 0x4000), (0x8000, 0x9000), (unchecked((nint)0x8000_0000_0000_0000), unchecked((nint)0x8000_0000_0001_0000))];
        nint[] addresses = [0, 0xFFF, 0x1000, 0x2FFF, 0x3000, 0x3FFF, 0x4000, 0x7FFF, 0x8FFF, 0x9000, nint.MaxValue, unchecked((nint)0x8000_0000_0000_FFFF), -1];

        foreach (nint address in addresses)
        {
            int scan = Array.FindIndex(ranges, r => (nuint)r.End > (nuint)address);
            Assert.Equal(scan < 0 ? ranges.Length : scan, AddressRanges.FirstEndingAfter(ranges, address));
        }

        Assert.Equal(0, AddressRanges.FirstEndingAfter(ReadOnlySpan<(nint Start, nint End)>.Empty, 0x1000));
    }
}
