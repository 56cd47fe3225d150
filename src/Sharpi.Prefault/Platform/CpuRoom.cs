using System.Buffers;
using System.Diagnostics;

namespace Sharpi.Prefault;

/// <summary>
/// Whether the machine's processors had time to spare over the last moment of a sweep: the share of their time that
/// was idle (or waiting on I/O) in <c>/proc/stat</c> between two reads at least <see cref="Interval"/> apart. A sweep
/// that waits on its storage leaves them idle, and there reading every page of a chunk it populated costs its run
/// nothing (the CPU reads while the device delivers the next chunks); a sweep from storage faster than the cores can
/// fault (a RAM disk, a fast NVMe drive) keeps them busy, and there the same read made the load 7-15% longer. Shared
/// by a run's sweep threads; the read is rate-limited to one per <see cref="Interval"/>, by whichever thread asks
/// first, and costs no allocation.
/// </summary>
/// <remarks>
/// <para>
/// Measured on the development VM (2 cores, kernel 6.18, a cold file, reporting suspended), the share idle over each
/// 50 ms of a sweep: 80-94% from its virtio disk (1 GiB, read_ahead_kb 128), 7-50% from a loop device over a tmpfs
/// (ext4, 1 GiB), where the loop's worker copies every byte on a core. Hence <see cref="IdleShare"/>. What reading
/// every page buys where it is free, in two A/B runs of the bench (<c>coldstart --size 2G --read-ahead-kb 128,8192
/// --repeat 4 --free-page-reporting suspend</c>, a throwaway row without the read): the engine's first request ran
/// 1.01x, 1.02x, 1.01x and 1.08x its warm time against 1.16x, 1.04x, 1.04x and 1.09x, loads within noise of each
/// other. On the RAM disk with a quarter idle as the bar, the read ran there too and cost the load 7-8% (0.254 s
/// against 0.236 s, ext4; 0.267 s against 0.247 s, xfs); with six tenths, nothing (0.242 s against 0.247 s, 0.265 s
/// against 0.281 s).
/// </para>
/// <para>
/// <c>/proc/stat</c> counts every processor of the machine (a container's CPU quota is not in it): in a container
/// limited to fewer cores than the host has, idle host cores read as room. What the read then costs the container's
/// quota is one byte per page through the kernel (about 75 ms of CPU time per GiB on the development VM).
/// </para>
/// </remarks>
internal sealed class CpuRoom
{
    /// <summary>At least this share of the processors' time idle (idle or iowait) over the last interval is room.</summary>
    internal const double IdleShare = 0.6;

    /// <summary>The shortest time between two reads: /proc/stat counts in clock ticks (10 ms), so shorter deltas say little.</summary>
    internal static readonly TimeSpan Interval = TimeSpan.FromMilliseconds(50);

    private const string StatPath = "/proc/stat";
    private static readonly long IntervalTicks = (long)(Interval.TotalSeconds * Stopwatch.Frequency);

    private long _readAt;
    private long _idle;
    private long _total;
    private int _reading;
    private int _state; // 0: not known yet, 1: room, 2: busy

    private CpuRoom(long readAt, long idle, long total)
    {
        _readAt = readAt;
        _idle = idle;
        _total = total;
    }

    /// <summary>Starts watching, or null where /proc/stat cannot be read (not Linux, no /proc, refused): then never room.</summary>
    internal static CpuRoom? TryStart()
    {
        if (!OperatingSystem.IsLinux())
        {
            return null;
        }

        long now = Stopwatch.GetTimestamp();
        return TryRead(out long idle, out long total) ? new CpuRoom(now, idle, total) : null;
    }

    /// <summary>
    /// True when the processors were at least <see cref="IdleShare"/> idle over the last interval measured; false
    /// until a first interval has passed. Rereads /proc/stat where the last read is <see cref="Interval"/> old and no
    /// other thread is reading it.
    /// </summary>
    internal bool HasRoom()
    {
        if (Stopwatch.GetTimestamp() - Volatile.Read(ref _readAt) >= IntervalTicks && Interlocked.CompareExchange(ref _reading, 1, 0) == 0)
        {
            try
            {
                long now = Stopwatch.GetTimestamp();
                if (now - _readAt >= IntervalTicks && TryRead(out long idle, out long total) && total > _total)
                {
                    Volatile.Write(ref _state, IsRoom(idle - _idle, total - _total) ? 1 : 2);
                    _idle = idle;
                    _total = total;
                    Volatile.Write(ref _readAt, now);
                }
            }
            finally
            {
                Volatile.Write(ref _reading, 0);
            }
        }

        return Volatile.Read(ref _state) == 1;
    }

    /// <summary>True when <paramref name="idle"/> of <paramref name="total"/> clock ticks is at least <see cref="IdleShare"/>.</summary>
    internal static bool IsRoom(long idle, long total) => total > 0 && idle >= total * IdleShare;

    /// <summary>
    /// The machine's idle (idle + iowait) and total (user, nice, system, idle, iowait, irq, softirq, steal) clock
    /// ticks from the first line of /proc/stat. False where it cannot be read or parsed.
    /// </summary>
    private static bool TryRead(out long idle, out long total)
    {
        idle = total = 0;
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }

        byte[] buffer = ArrayPool<byte>.Shared.Rent(4096);
        try
        {
            int length = KernelFile.TryReadAll(StatPath, ref buffer);
            return length > 0 && TryParse(buffer.AsSpan(0, length), out idle, out total);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <summary>Parses the aggregate "cpu " line that opens /proc/stat (see <see cref="TryRead"/>).</summary>
    internal static bool TryParse(ReadOnlySpan<byte> stat, out long idle, out long total)
    {
        idle = total = 0;
        if (!stat.StartsWith("cpu "u8))
        {
            return false;
        }

        int end = stat.IndexOf((byte)'\n');
        ReadOnlySpan<byte> line = stat[4..(end < 0 ? stat.Length : end)];

        // user nice system idle iowait irq softirq steal (guest and guest_nice are already in user and nice)
        int field = 0;
        while (field < 8)
        {
            line = line.TrimStart((byte)' ');
            int digits = 0;
            long value = 0;
            while (digits < line.Length && line[digits] is >= (byte)'0' and <= (byte)'9' && digits < 19)
            {
                value = (value * 10) + (line[digits] - '0');
                digits++;
            }

            if (digits == 0)
            {
                // Kernels before 2.6.11 end the line earlier; every field a line has counts.
                return field >= 4;
            }

            total += value;
            if (field is 3 or 4)
            {
                idle += value;
            }

            line = line[digits..];
            field++;
        }

        return true;
    }
}
