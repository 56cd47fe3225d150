using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// A disk's read counters from <c>/sys/block/&lt;disk&gt;/stat</c> (reads completed, sectors read; 512-byte sectors
/// whatever the disk's block size). Between two snapshots, bytes over reads is the average request the disk saw:
/// what decides a virtio disk's throughput (O_DIRECT into 4 KiB pages: 530-860 KiB; into 2 MiB pages or read-ahead
/// into 2 MiB folios: up to 4 MiB). The counters are the disk's, so other processes' reads at the same time are in them too.
/// </summary>
internal readonly record struct DiskStats(long Reads, long Bytes)
{
    internal static DiskStats? Now(BlockDevice device)
    {
        string[]? fields = device.Name is null ? null : BlockDevice.TryRead($"/sys/block/{device.Name}/stat")?.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        return fields is { Length: > 2 }
            && long.TryParse(fields[0], NumberStyles.None, CultureInfo.InvariantCulture, out long reads)
            && long.TryParse(fields[2], NumberStyles.None, CultureInfo.InvariantCulture, out long sectors)
            ? new DiskStats(reads, sectors * 512)
            : null;
    }

    public static DiskStats operator -(DiskStats after, DiskStats before) => new(after.Reads - before.Reads, after.Bytes - before.Bytes);
}
