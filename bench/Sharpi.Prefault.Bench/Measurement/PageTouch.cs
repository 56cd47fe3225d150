namespace Sharpi.Prefault.Bench;

/// <summary>What naive engines do to warm a mapping: one thread reads one byte of every page, in order.</summary>
internal static unsafe class PageTouch
{
    private static long s_checksum;

    internal static long Checksum => Volatile.Read(ref s_checksum);

    internal static void OneThread(byte* start, long length)
    {
        nint page = Environment.SystemPageSize;
        long acc = 0;
        for (byte* p = start, end = start + length; p < end; p += page)
        {
            acc += *p;
        }

        Interlocked.Add(ref s_checksum, acc);
    }
}
