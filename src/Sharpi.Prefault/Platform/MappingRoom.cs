using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>
/// How many more mappings this process may make under <c>vm.max_map_count</c> (Linux): the limit less the mappings it
/// has now (the lines of /proc/self/maps) less a margin left to the .NET runtime.
/// </summary>
internal sealed class MappingRoom
{
    internal const string MaxMapCountPath = "/proc/sys/vm/max_map_count";

    /// <summary>The most mappings left to the runtime (a quarter of a small limit): its heap, code and stacks as it grows meanwhile.</summary>
    internal const int MaxMargin = 4096;

    private readonly Func<long> _countMappings;
    private bool _exhausted;

    /// <param name="limit">The limit (<c>vm.max_map_count</c>), or null where there is none to read.</param>
    /// <param name="countMappings">Counts the mappings the process has now; negative when it cannot.</param>
    internal MappingRoom(long? limit, Func<long> countMappings)
    {
        Limit = limit;
        _countMappings = countMappings;
        Margin = limit is long l ? Math.Min(MaxMargin, l / 4) : 0;
        Recount();
    }

    /// <summary><c>vm.max_map_count</c>; null where it cannot be read (not Linux, no /proc): then the room is unbounded.</summary>
    internal long? Limit { get; }

    /// <summary>The mappings left to the runtime, not to be taken.</summary>
    internal long Margin { get; }

    /// <summary>The mappings the process had at the last count.</summary>
    internal long Count { get; private set; }

    /// <summary>Mappings that may still be made (negative once past the margin); <see cref="long.MaxValue"/> when unbounded.</summary>
    internal long Free { get; private set; }

    internal bool IsBounded => Free != long.MaxValue;

    /// <summary>The room of this process now.</summary>
    internal static MappingRoom Current() =>
        OperatingSystem.IsLinux() ? new MappingRoom(ReadLimit(), CountSelfMappings) : new MappingRoom(null, static () => -1);

    /// <summary>Counts the mappings again and returns the room now.</summary>
    internal long Recount()
    {
        long count = Limit is null ? -1 : _countMappings();
        Count = Math.Max(count, 0);
        Free = Limit is long limit && count >= 0 ? limit - count - Margin : long.MaxValue;
        return Free;
    }

    /// <summary>
    /// Takes <paramref name="mappings"/> from the room; when the estimate runs short, counts again first (what was taken
    /// may have cost less than estimated). False, taking nothing, when there is no room for them; from then on without
    /// counting again, so a long list past the limit costs one count, not one each.
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

    /// <summary>Why something was not taken, and what to do, for a failure's message.</summary>
    internal string Describe(string what) =>
        string.Create(CultureInfo.InvariantCulture, $"{what}: this process has {Count} mappings and vm.max_map_count is {Limit}, less {Margin} left to the .NET runtime, ")
        + "which aborts the process when it cannot map memory. Work on fewer files or regions at once, or raise the limit "
        + "(sysctl -w vm.max_map_count=262144).";

    /// <summary>vm.max_map_count, or null where unreadable.</summary>
    internal static long? ReadLimit() =>
        long.TryParse(KernelFile.TryReadText(MaxMapCountPath).AsSpan().Trim(), NumberStyles.None, CultureInfo.InvariantCulture, out long limit) && limit > 0
            ? limit
            : null;

    /// <summary>The lines of /proc/self/maps, one per mapping, counted in a small buffer (no line is parsed); -1 where unreadable.</summary>
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
