namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>Reads one byte of every page of a region, as an engine's first pass over its weights would.</summary>
public static class PageTouch
{
    public static unsafe long TouchEveryPage(PrefaultRegion region)
    {
        long page = Environment.SystemPageSize;
        byte* p = (byte*)region.Address;
        long sum = 0;
        for (long at = 0; at < region.Length; at += page)
        {
            sum += p[at];
        }

        return sum;
    }

    public static unsafe ReadOnlySpan<byte> Bytes(PrefaultRegion region) => new((void*)region.Address, checked((int)region.Length));
}
