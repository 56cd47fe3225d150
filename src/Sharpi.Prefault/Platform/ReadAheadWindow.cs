using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>
/// The most one <c>MADV_WILLNEED</c> (or <c>POSIX_FADV_WILLNEED</c>, or <c>readahead(2)</c>) reads of a file on a
/// device: the kernel caps each call at the larger of the device's largest request (<c>max_sectors_kb</c>) and its
/// read-ahead window (<c>read_ahead_kb</c>) and silently drops the rest (<c>force_page_cache_ra</c>). Measured here
/// (kernel 6.18, max_sectors_kb 4096): one WILLNEED over 64 MiB of a cold file read 4 MiB of it at read_ahead_kb 128,
/// and 8 MiB of 256 MiB at 8192. So a range is asked for in windows of this size, each a full-size read.
/// </summary>
internal static class ReadAheadWindow
{
    /// <summary>The smallest window assumed (the kernel's default read-ahead): a device whose limits cannot be read.</summary>
    internal const long MinBytes = 128 * 1024;

    /// <summary>The largest window asked for at once: beyond it a call only holds its thread longer.</summary>
    internal const long MaxBytes = 8 * 1024 * 1024;

    /// <summary>
    /// The window for files on <paramref name="device"/> (major in the high 32 bits, as <see cref="ProcMapEntry.Device"/>),
    /// with the device's <see cref="ReadAheadOf"/> it read on the way (0 where unknown).
    /// </summary>
    internal static long For(ulong device, out long readAheadBytes)
    {
        readAheadBytes = 0;
        if (!OperatingSystem.IsLinux() || device == 0)
        {
            return MinBytes;
        }

        string id = string.Create(CultureInfo.InvariantCulture, $"{device >> 32}:{device & 0xFFFF_FFFF}");

        // A block device's queue (a partition's is its disk's); else the bdi alone (btrfs, tmpfs, FUSE: read-ahead only).
        long maxRequest = ReadKb($"/sys/dev/block/{id}/queue/max_sectors_kb") ?? ReadKb($"/sys/dev/block/{id}/../queue/max_sectors_kb") ?? 0;
        readAheadBytes = ReadAheadOf(device);
        return Math.Clamp(Math.Max(maxRequest, readAheadBytes), MinBytes, MaxBytes);
    }

    /// <summary>
    /// Whether asking for a range in windows of <paramref name="windowBytes"/> reads more a request than the kernel's
    /// own read-ahead of <paramref name="readAheadBytes"/> would (0: not known, so yes): only then are windows worth
    /// their 4 KiB folios (see <see cref="FileStaging"/>).
    /// </summary>
    internal static bool ReadsMoreThanReadAhead(long windowBytes, long readAheadBytes) => readAheadBytes <= 0 || windowBytes > readAheadBytes;

    /// <summary>The read-ahead of <paramref name="device"/> alone (<c>read_ahead_kb</c>), in bytes; 0 where it cannot be read.</summary>
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
