using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>
/// The most one WILLNEED reads of a file on a device: the kernel caps a call at the larger of <c>max_sectors_kb</c>
/// and <c>read_ahead_kb</c> and drops the rest, so ranges are asked for in windows of this size.
/// </summary>
internal static class ReadAheadWindow
{
    /// <summary>The kernel's default read-ahead: for a device whose limits cannot be read.</summary>
    internal const long MinBytes = 128 * 1024;

    /// <summary>Beyond it a call only holds its thread longer.</summary>
    internal const long MaxBytes = 8 * 1024 * 1024;

    /// <summary>The window for files on <paramref name="device"/>, and its read-ahead (0 where unknown).</summary>
    internal static long For(ulong device, out long readAheadBytes)
    {
        readAheadBytes = 0;
        if (!OperatingSystem.IsLinux() || device == 0)
        {
            return MinBytes;
        }

        string id = string.Create(CultureInfo.InvariantCulture, $"{device >> 32}:{device & 0xFFFF_FFFF}");

        // A partition's queue is its disk's; btrfs, tmpfs and FUSE have only the bdi's read-ahead.
        long maxRequest = ReadKb($"/sys/dev/block/{id}/queue/max_sectors_kb") ?? ReadKb($"/sys/dev/block/{id}/../queue/max_sectors_kb") ?? 0;
        readAheadBytes = ReadAheadOf(device);
        return Math.Clamp(Math.Max(maxRequest, readAheadBytes), MinBytes, MaxBytes);
    }

    /// <summary>Whether windows read more a request than the read-ahead (unknown: yes): only then are their 4 KiB folios worth it.</summary>
    internal static bool ReadsMoreThanReadAhead(long windowBytes, long readAheadBytes) => readAheadBytes <= 0 || windowBytes > readAheadBytes;

    /// <summary><c>read_ahead_kb</c> in bytes; 0 where it cannot be read.</summary>
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
