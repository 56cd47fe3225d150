using System.Runtime.Versioning;
using Sharpi.Prefault.Tests.Mappings;

namespace Sharpi.Prefault.Tests.Locking;

/// <summary>
/// Each lock of a range inside a mapping splits it; past vm.max_map_count the kernel refuses new mappings and the .NET
/// runtime aborts the process. The lock checks its room first and reports what it did not take. The files hold data
/// (a sparse file's holes are left out of a lock: nothing would be locked, and nothing split).
/// </summary>
[Collection(ProcessMemoryFigures.Name)]
[SupportedOSPlatform("linux")]
public sealed class MmapLockMapCountTests(ITestOutputHelper output)
{
    private static readonly long Page = Environment.SystemPageSize;

    /// <summary>
    /// 35,000 one-page regions two pages apart would split one mapping into 70,000, past the default limit of 65,530.
    /// In a child process: the old code aborted it (exit 134) inside the failure diagnosis.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable35000Pages), nameof(Requirements.MapCountBelow70000))]
    public void Lock_OfMoreSplitsThanTheMapCountAllows_LocksWhatFits_AndReportsTheRest_InsteadOfAborting()
    {
        const int count = 35_000;
        long limit = MappingRoom.ReadLimit()!.Value;
        using TestFile file = TestFile.Create(2 * count * Page);

        CliRun run = ChildProcess.Run([ChildCases.LockSplitPages, file.Path, count.ToString(System.Globalization.CultureInfo.InvariantCulture)]);

        output.WriteLine($"exit {run.ExitCode}\n{run.Out}\n{run.Err}");
        Assert.Equal(0, run.ExitCode);
        long locked = long.Parse(ChildProcess.Value(run, "locked"), System.Globalization.CultureInfo.InvariantCulture);
        int failures = int.Parse(ChildProcess.Value(run, "failures"), System.Globalization.CultureInfo.InvariantCulture);
        Assert.Equal(count, locked + failures);
        Assert.InRange(locked, count / 2, count - 1);
        Assert.Contains("vm.max_map_count", ChildProcess.Value(run, "failure"), StringComparison.Ordinal);
        Assert.InRange(long.Parse(ChildProcess.Value(run, "mappings"), System.Globalization.CultureInfo.InvariantCulture), 1, limit - 1);
        Assert.Equal("0", ChildProcess.Value(run, "lockedAfterDispose"));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public void Lock_WithRoomForSomeSplits_LocksTheRegionsListedFirst_AndReportsEachOfTheOthers()
    {
        using TestFile file = TestFile.Create(100 * Page);
        using var map = NativeMmap.Map(file.Path, 0, file.Length);
        PrefaultRegion[] regions = OnePageEveryOther(map, 50);

        // Room for 20 new mappings: ten locks that each split the mapping at both ends.
        using LockLease lease = MmapLock.Lock(regions, new LockOptions { RamGate = RamGate.Always }, RoomOf(free: 20, map));

        Assert.Equal(10 * Page, lease.LockedBytes);
        Assert.Equal(40, lease.Failures.Count);
        Assert.Equal(Enumerable.Range(10, 40).Select(i => $"r{i}"), lease.Failures.Select(f => f.Name));
        Assert.All(lease.Failures, f => Assert.Contains("vm.max_map_count", f.Message, StringComparison.Ordinal));
        Assert.Equal(10 * Page / 1024, LockedKiBIn(map));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public void Lock_OfWholeMappings_SplitsNothing_SoNeedsNoRoom()
    {
        using TestFile file = TestFile.Create(4 * Page);
        var maps = new List<NativeMmap>();
        try
        {
            for (int i = 0; i < 5; i++)
            {
                maps.Add(NativeMmap.Map(file.Path, 0, file.Length));
            }

            PrefaultRegion[] regions = [.. maps.Select((m, i) => new PrefaultRegion(m.Address, m.Length, $"file{i}"))];
            using LockLease lease = MmapLock.Lock(regions, new LockOptions { RamGate = RamGate.Always }, RoomOf(free: 0, [.. maps]));

            Assert.Empty(lease.Failures);
            Assert.Equal(5 * 4 * Page, lease.LockedBytes);
        }
        finally
        {
            maps.ForEach(m => m.Dispose());
        }
    }

    /// <summary>The 33,000-region case threw OutOfMemoryException with 127 MiB locked and no lease to unlock it.</summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public void Lock_ThatThrowsAfterLockingSome_LeavesNothingLocked()
    {
        using TestFile file = TestFile.Create(100 * Page);
        using var map = NativeMmap.Map(file.Path, 0, file.Length);
        int counts = 0;
#pragma warning disable CA2201 // What the runtime throws when it cannot map memory, thrown here where it would come.
        var room = new MappingRoom(Limit, () => ++counts == 1 ? Limit - Margin - 20 : throw new OutOfMemoryException("test: out of memory on the recount"));
#pragma warning restore CA2201

        Assert.Throws<OutOfMemoryException>(() => MmapLock.Lock(OnePageEveryOther(map, 50), new LockOptions { RamGate = RamGate.Always }, room));

        Assert.Equal(2, counts); // ten regions were locked before the throw
        Assert.Equal(0, LockedKiBIn(map));
        Assert.DoesNotContain(LockRegistry.Process.Held(), h => (nuint)h.Start < (nuint)(map.Address + (nint)map.Length) && (nuint)h.End > (nuint)map.Address);
    }

    private const long Limit = 65_530;
    private const long Margin = MappingRoom.MaxMargin;

    /// <summary>
    /// A room with <paramref name="free"/> mappings left now, however many the process really has: the count starts
    /// there and follows the mappings inside <paramref name="maps"/> from then on, which only the lock's splits add.
    /// Not the process's whole count: the runtime maps and unmaps memory of its own at any time (thread stacks, GC
    /// regions, code heaps), and two such mappings (a new thread's stack and guard, say) counted at the start once took
    /// a split's room (9 of 10 regions locked).
    /// </summary>
    private static MappingRoom RoomOf(long free, params NativeMmap[] maps)
    {
        long before = MappingsIn(maps);
        return new MappingRoom(Limit, () => Limit - Margin - free + (MappingsIn(maps) - before));
    }

    private static long MappingsIn(NativeMmap[] maps) =>
        maps.Sum(static m => (long)ProcMaps.ReadSelf(m.Address, m.Address + (nint)m.Length).Length);

    private static PrefaultRegion[] OnePageEveryOther(NativeMmap map, int count) =>
        [.. Enumerable.Range(0, count).Select(i => new PrefaultRegion(map.Address + (nint)(2 * i * Page), Page, $"r{i}"))];

    /// <summary>The KiB of <paramref name="map"/> that are locked: the Locked: lines of its mappings in /proc/self/smaps.</summary>
    private static long LockedKiBIn(NativeMmap map)
    {
        long kib = 0;
        bool inside = false;
        foreach (string line in File.ReadLines("/proc/self/smaps"))
        {
            int dash = line.IndexOf('-', StringComparison.Ordinal);
            int space = line.IndexOf(' ', StringComparison.Ordinal);
            if (dash > 0 && space > dash && ulong.TryParse(line.AsSpan(0, dash), System.Globalization.NumberStyles.HexNumber, null, out ulong start)
                && ulong.TryParse(line.AsSpan(dash + 1, space - dash - 1), System.Globalization.NumberStyles.HexNumber, null, out ulong end))
            {
                inside = start < (ulong)(map.Address + (nint)map.Length) && end > (ulong)map.Address;
            }
            else if (inside && line.StartsWith("Locked:", StringComparison.Ordinal))
            {
                kib += long.Parse(line["Locked:".Length..].Trim().Split(' ')[0], System.Globalization.CultureInfo.InvariantCulture);
            }
        }

        return kib;
    }
}
