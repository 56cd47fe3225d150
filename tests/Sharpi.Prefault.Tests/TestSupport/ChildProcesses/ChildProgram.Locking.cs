using Sharpi.Prefault.Tests.Mappings;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>The child cases about locking (mlockall, split pages).</summary>
internal static partial class ChildProgram
{
    /// <summary>
    /// As an engine that calls <c>mlockall(MCL_CURRENT | MCL_FUTURE)</c> and then maps its weights (every later mapping
    /// is locked as it is made): takes a lease over the middle half of <paramref name="path"/>'s mapping, disposes it,
    /// and prints VmLck and how much of the mapping is still locked (smaps VmFlags lo).
    /// </summary>
    private static int LockUnderMlockall(string path)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        long length = new FileInfo(path).Length;
        NativeTestMethods.LockAll(NativeTestMethods.MclCurrent | NativeTestMethods.MclFuture);
        using NativeMmap map = NativeMmap.Map(path, 0, length, shared: true);
        Console.WriteLine($"mappingLocked={LockedBytesOf(map.Address, length)}");
        long before = ProcessStatus.ReadStatusBytes("VmLck");
        LockLease lease = MmapLock.Lock([new PrefaultRegion(map.Address + (nint)(length / 4), length / 2, "blk.1")], new LockOptions { RamGate = RamGate.Always });
        Console.WriteLine($"leaseLocked={lease.LockedBytes}");
        Console.WriteLine($"leaseAlreadyLocked={lease.AlreadyLockedBytes}");
        Console.WriteLine($"fullyLocked={lease.IsFullyLocked}");
        lease.Dispose();
        Console.WriteLine($"vmLckChange={ProcessStatus.ReadStatusBytes("VmLck") - before}");
        Console.WriteLine($"mappingLockedAfterDispose={LockedBytesOf(map.Address, length)}");
        NativeTestMethods.UnlockAll();
        Console.WriteLine("done");
        return 0;
    }

    private static long LockedBytesOf(nint address, long length)
    {
        long locked = 0;
        foreach ((nint start, nint end) in LockedMappings.Read(address, address + (nint)length))
        {
            locked += end - start;
        }

        return locked;
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

        using (LockLease lease = MmapLock.Lock(regions, new LockOptions { RamGate = RamGate.Always }))
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
