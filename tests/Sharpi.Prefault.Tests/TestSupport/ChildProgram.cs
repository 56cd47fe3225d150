using System.Globalization;
using Sharpi.Prefault.Tests.Mappings;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// The test assembly's own entry point (the test SDK's generated one is turned off): <c>dotnet Sharpi.Prefault.Tests.dll
/// CASE ARGS</c> runs one library case in a child process, for what could kill the test host (a process at
/// vm.max_map_count, which the runtime answers with an abort) or needs a process of its own (a pids cgroup). The test
/// runner loads the assembly and never calls this. Each case prints what it saw as <c>key=value</c> lines, and
/// <c>done</c> last.
/// </summary>
internal static class ChildProgram
{
    public static int Main(string[] args)
    {
        if (args.Length == 0)
        {
            return 2;
        }

        switch (args[0])
        {
            case ChildCases.LockSplitPages:
                return LockSplitPages(args[1], int.Parse(args[2], CultureInfo.InvariantCulture));
            default:
                Console.Error.WriteLine($"unknown case '{args[0]}'");
                return 2;
        }
    }

    /// <summary>Locks <paramref name="count"/> one-page regions two pages apart of a mapping of <paramref name="path"/>: each lock splits the mapping.</summary>
    private static int LockSplitPages(string path, int count)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        long page = Environment.SystemPageSize;
        using NativeMmap map = NativeMmap.Map(path, 0, 2 * count * page);
        var regions = new PrefaultRegion[count];
        for (int i = 0; i < count; i++)
        {
            regions[i] = new PrefaultRegion(map.Address + (nint)(2 * i * page), page, $"r{i}");
        }

        using (LockLease lease = MmapLock.Lock(regions, LockOptions.Default with { RamGate = RamGate.Always }))
        {
            Console.WriteLine($"locked={lease.LockedBytes / page}");
            Console.WriteLine($"failures={lease.Failures.Count}");
            Console.WriteLine($"mappings={MappingRoom.CountSelfMappings()}");
            if (lease.Failures.Count > 0)
            {
                Console.WriteLine($"failure={lease.Failures[^1].Name}: {lease.Failures[^1].Message}");
            }
        }

        Console.WriteLine($"lockedAfterDispose={ProcessStatus.ReadStatusBytes("VmLck")}");
        Console.WriteLine("done");
        return 0;
    }
}

/// <summary>The cases <see cref="ChildProgram"/> runs.</summary>
internal static class ChildCases
{
    public const string LockSplitPages = "lock-split-pages";
}
