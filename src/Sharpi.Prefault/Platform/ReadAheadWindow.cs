using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>The most one WILLNEED reads on a device: max(<c>max_sectors_kb</c>, <c>read_ahead_kb</c>); the kernel drops the rest.</summary>
internal static class ReadAheadWindow
{
    /// <summary>The kernel's default read-ahead.</summary>
    internal const long MinBytes = 128 * 1024;

    /// <summary>Beyond it a call only holds its thread longer.</summary>
    internal const long MaxBytes = 8 * 1024 * 1024;

    /// <summary>Also the device's read-ahead (0 where unknown).</summary>
    internal static long For(ulong device, out long readAheadBytes)
    {
        readAheadBytes = 0;
        if (!OperatingSystem.IsLinux() || device == 0)
        {
            return MinBytes;
        }

        string id = string.Create(CultureInfo.InvariantCulture, $"{device >> 32}:{device & 0xFFFF_FFFF}");

        // A partition's queue is its disk's; btrfs, tmpfs, FUSE have only a bdi.
        long maxRequest = ReadKb($"/sys/dev/block/{id}/queue/max_sectors_kb") ?? ReadKb($"/sys/dev/block/{id}/../queue/max_sectors_kb") ?? 0;
        readAheadBytes = ReadAheadOf(device);
        return Math.Clamp(Math.Max(maxRequest, readAheadBytes), MinBytes, MaxBytes);
    }

    /// <summary>Unknown: yes. Only then are windows worth their 4 KiB folios.</summary>
    internal static bool ReadsMoreThanReadAhead(long windowBytes, long readAheadBytes) => readAheadBytes <= 0 || windowBytes > readAheadBytes;

    /// <summary>0 where unreadable.</summary>
    internal static long ReadAheadOf(ulong device)
    {
        if (!OperatingSystem.IsLinux() || device == 0)
        {
            return 0;
        }

        string id = string.Create(CultureInfo.InvariantCulture, $"{device >> 32}:{device & 0xFFFF_FFFF}");
        return ReadKb($"/sys/class/bdi/{id}/read_ahead_kb") ?? ReadKb($"/sys/dev/block/{id}/queue/read_ahead_kb")
            ?? ReadKb($"/sys/dev/block/{id}/../queue/read_ahead_kb") ?? 0;
    }

    private static long? ReadKb(string path) =>
        KernelFile.TryReadText(path) is string text && long.TryParse(text.Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out long kb) && kb > 0
            ? kb * 1024
            : null;
}
