using System.Globalization;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Tests.Locking;

/// <summary>
/// The engine locked its weights itself (llama.cpp's <c>--mlock</c>, or <c>mlockall</c>) before a lease was taken over
/// part of them. munlock does not count: a lease that locked and then unlocked those pages undid the engine's lock
/// (VmLck 262,144 -> 196,608 kB). A lease now leaves pages the process had locked as it found them.
/// </summary>
[Collection(ProcessMemoryFigures.Name)]
[SupportedOSPlatform("linux")]
public sealed class MmapLockEngineLockTests(ITestOutputHelper output)
{
    private static long VmLck => ProcessStatus.ReadStatusBytes("VmLck");

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable16MiB))]
    public void Dispose_OfALeaseInsideAnEngineLockedMapping_KeepsTheEnginesLock()
    {
        using TestFile file = TestFile.Create(16 * TestFile.MiB);
        using MappedFile map = file.Map();
        nint start = map.Region().Address;
        using var engine = new EngineLock(map, map.Length); // the engine's --mlock

        (long before, long during, LockLease lease) = LeaseAndDispose(map.Region(4 * TestFile.MiB, 4 * TestFile.MiB, "blk.1"));

        output.WriteLine($"VmLck {before >> 10} kB, with the lease {during >> 10} kB, after its dispose {VmLck >> 10} kB");
        Assert.Equal(before, VmLck);
        Assert.Equal(before, during);
        Assert.True(lease.IsFullyLocked, lease.Failures.Count > 0 ? lease.Failures[0].Message : null);
        Assert.Equal(0, lease.LockedBytes);
        Assert.Equal(4 * TestFile.MiB, lease.AlreadyLockedBytes);
        Assert.Equal([(start, start + (nint)map.Length)], LockedMappings.Read(start, start + (nint)map.Length));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable16MiB))]
    public void Lock_OverPartOfAnEngineLockedRange_LocksAndUnlocksOnlyTheRest()
    {
        using TestFile file = TestFile.Create(16 * TestFile.MiB);
        using MappedFile map = file.Map();
        nint start = map.Region().Address;
        using var engine = new EngineLock(map, 8 * TestFile.MiB); // the engine locked the first half

        (long before, long during, LockLease lease) = LeaseAndDispose(map.Region(4 * TestFile.MiB, 8 * TestFile.MiB, "blk.1"));

        Assert.Equal(before, VmLck);
        Assert.Equal(4 * TestFile.MiB, during - before);
        Assert.True(lease.IsFullyLocked, lease.Failures.Count > 0 ? lease.Failures[0].Message : null);
        Assert.Equal(4 * TestFile.MiB, lease.LockedBytes);
        Assert.Equal(4 * TestFile.MiB, lease.AlreadyLockedBytes);
        Assert.Equal([(start, start + (nint)(8 * TestFile.MiB))], LockedMappings.Read(start, start + (nint)map.Length));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable16MiB))]
    public void Lock_OfPagesAnotherLeaseHolds_CountsThemAsTheLeases_NotAsTheEngines()
    {
        // The first lease's pages are locked (VmFlags lo) when the second is taken: they are a lease's, so the second
        // counts them and the last dispose unlocks them.
        using TestFile file = TestFile.Create(16 * TestFile.MiB);
        using MappedFile map = file.Map();
        long before = VmLck;
        LockLease first = MmapLock.Lock([map.Region(0, 8 * TestFile.MiB)]);
        LockLease second = MmapLock.Lock([map.Region(4 * TestFile.MiB, 8 * TestFile.MiB)]);

        first.Dispose();
        long afterFirst = VmLck - before;
        second.Dispose();

        Assert.Equal(0, second.AlreadyLockedBytes);
        Assert.Equal(8 * TestFile.MiB, second.LockedBytes);
        Assert.Equal(8 * TestFile.MiB, afterFirst);
        Assert.Equal(before, VmLck);
    }

    /// <summary>
    /// mlockall would lock every mapping of the test host (and, with MCL_FUTURE, each it makes later), so the engine's
    /// part runs in a child process: it calls mlockall(MCL_CURRENT | MCL_FUTURE), maps the file (locked as it is made),
    /// and takes and disposes a lease over half of it.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable32MiB))]
    public void Dispose_UnderMlockall_LeavesEveryPageLocked()
    {
        using TestFile file = TestFile.Create(32 * TestFile.MiB);

        CliRun run = ChildProcess.Run([ChildCases.LockUnderMlockall, file.Path]);

        output.WriteLine(run.Out);
        output.WriteLine(run.Err);
        Assert.Equal(0, run.ExitCode);
        Assert.Equal(32 * TestFile.MiB, Bytes(run, "mappingLocked"));
        Assert.Equal(32 * TestFile.MiB, Bytes(run, "mappingLockedAfterDispose"));
        Assert.Equal(0, Bytes(run, "leaseLocked"));
        Assert.Equal(16 * TestFile.MiB, Bytes(run, "leaseAlreadyLocked"));
        Assert.Equal("True", ChildProcess.Value(run, "fullyLocked"));
        Assert.True(Bytes(run, "vmLckChange") >= 0, "VmLck fell: the lease unlocked pages (under MCL_FUTURE it may rise: the runtime's own new memory is locked as it is made)");
    }

    private static long Bytes(CliRun run, string key) => long.Parse(ChildProcess.Value(run, key), CultureInfo.InvariantCulture);

    /// <summary>VmLck before a lease over <paramref name="region"/>, while it is held, and the lease, disposed.</summary>
    private static (long Before, long During, LockLease Lease) LeaseAndDispose(PrefaultRegion region)
    {
        long before = VmLck;
        LockLease lease = MmapLock.Lock([region]);
        long during = VmLck;
        lease.Dispose();
        return (before, during, lease);
    }

    /// <summary>The engine's own lock of the first <c>bytes</c> of a mapping (mlock, as llama.cpp's --mlock); dispose unlocks the whole mapping.</summary>
    private sealed class EngineLock : IDisposable
    {
        private readonly nint _start;
        private readonly long _length;

        public EngineLock(MappedFile map, long bytes)
        {
            _start = map.Region().Address;
            _length = map.Length;
            NativeTestMethods.Lock(_start, bytes);
        }

        public void Dispose() => NativeTestMethods.Unlock(_start, _length);
    }
}
