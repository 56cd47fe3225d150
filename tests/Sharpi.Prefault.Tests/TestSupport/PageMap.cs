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

/// <summary>Addresses that were mapped and no longer are: what a stale region points at.</summary>
public static class Unmapped
{
    public static nint Address(long length)
    {
        using TestFile file = TestFile.Create(length);
        using MappedFile map = file.Map();
        return map.Region().Address;
    }
}
