using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>How many more mappings this process may make under vm.max_map_count, less a margin left to the runtime.</summary>
internal sealed class MappingRoom
{
    internal const string MaxMapCountPath = "/proc/sys/vm/max_map_count";

    /// <summary>The most mappings left to the runtime (a quarter of a small limit).</summary>
    internal const int MaxMargin = 4096;

    private readonly Func<long> _countMappings;
    private bool _exhausted;

    /// <param name="limit">vm.max_map_count; null: none.</param>
    /// <param name="countMappings">The mappings now; negative when it cannot count.</param>
    internal MappingRoom(long? limit, Func<long> countMappings)
    {
        Limit = limit;
        _countMappings = countMappings;
        Margin = limit is long l ? Math.Min(MaxMargin, l / 4) : 0;
        Recount();
    }

    /// <summary>Null where unreadable: the room is unbounded.</summary>
    internal long? Limit { get; }

    internal long Margin { get; }

    internal long Count { get; private set; }

    /// <summary>Mappings still to make (negative past the margin); <see cref="long.MaxValue"/> when unbounded.</summary>
    internal long Free { get; private set; }

    internal bool IsBounded => Free != long.MaxValue;

    internal static MappingRoom Current() =>
        OperatingSystem.IsLinux() ? new MappingRoom(ReadLimit(), CountSelfMappings) : new MappingRoom(null, static () => -1);

    internal long Recount()
    {
        long count = Limit is null ? -1 : _countMappings();
        Count = Math.Max(count, 0);
        Free = Limit is long limit && count >= 0 ? limit - count - Margin : long.MaxValue;
        return Free;
    }

    /// <summary>
    /// Takes <paramref name="mappings"/>, recounting first when short; false, taking nothing, when there is no room, and
    /// from then on without recounting.
    /// </summary>
    internal bool TryTake(long mappings)
    {
        if (mappings <= 0 || !IsBounded)
        {
            return true;
        }

        if (Free < mappings && (_exhausted || Recount() < mappings))
        {
            _exhausted = true;
            return false;
        }

        Free -= mappings;
        return true;
    }

    /// <summary>A failure's message: why, and what to do.</summary>
    internal string Describe(string what) =>
        string.Create(CultureInfo.InvariantCulture, $"{what}: this process has {Count} mappings and vm.max_map_count is {Limit}, less {Margin} left to the .NET runtime, ")
        + "which aborts the process when it cannot map memory. Work on fewer files or regions at once, or raise the limit "
        + "(sysctl -w vm.max_map_count=262144).";

    internal static long? ReadLimit() =>
        long.TryParse(KernelFile.TryReadText(MaxMapCountPath).AsSpan().Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out long limit) && limit > 0
            ? limit
            : null;

    /// <summary>The lines of /proc/self/maps, unparsed; -1 where unreadable.</summary>
    internal static long CountSelfMappings()
    {
        try
        {
            using var stream = new FileStream("/proc/self/maps", FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 1);
            Span<byte> buffer = stackalloc byte[8192];
            long lines = 0;
            int read;
            while ((read = stream.Read(buffer)) > 0)
            {
                lines += buffer[..read].Count((byte)'\n');
            }

            return lines;
        }
        catch (IOException)
        {
            return -1;
        }
        catch (UnauthorizedAccessException)
        {
            return -1;
        }
    }
}
