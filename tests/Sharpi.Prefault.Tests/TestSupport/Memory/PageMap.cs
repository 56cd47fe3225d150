namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// /proc/self/pagemap (Linux): whether a virtual page is mapped into this process right now. Unlike mincore,
/// which answers for the page cache, this says whether this process's page table holds the page.
/// </summary>
public static class PageMap
{
    private const ulong PresentBit = 1UL << 63;

    public static bool IsPresent(nint address)
    {
        long page = Environment.SystemPageSize;
        using var stream = new FileStream("/proc/self/pagemap", FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 1);
        stream.Position = (long)((ulong)address / (ulong)page * 8);
        Span<byte> entry = stackalloc byte[8];
        stream.ReadExactly(entry);
        return (BitConverter.ToUInt64(entry) & PresentBit) != 0;
    }

    /// <summary>How many of the pages of [address, address + length) are mapped into this process.</summary>
    public static int CountPresent(nint address, long length)
    {
        long page = Environment.SystemPageSize;
        long first = (long)((ulong)address / (ulong)page);
        long last = (long)(((ulong)address + (ulong)length - 1) / (ulong)page);
        byte[] entries = new byte[(last - first + 1) * 8];
        using (var stream = new FileStream("/proc/self/pagemap", FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 1))
        {
            stream.Position = first * 8;
            stream.ReadExactly(entries);
        }

        int present = 0;
        for (int i = 0; i < entries.Length; i += 8)
        {
            present += (BitConverter.ToUInt64(entries, i) & PresentBit) != 0 ? 1 : 0;
        }

        return present;
    }
}

/// <summary>Addresses no mapping can hold: what a stale region points at.</summary>
/// <remarks>
/// A freed view's address is not enough: tests run in parallel and another test's next mapping may land in the
/// hole. 144 TiB lies above the 47-bit user address space of 4-level paging (the kernel answers ENOMEM for it),
/// and with 5-level paging the kernel places no mapping above 47 bits unless asked to.
/// </remarks>
public static class Unmapped
{
    public static nint Address(long length)
    {
        _ = length;
        return unchecked((nint)0x0000_9000_0000_0000);
    }
}
