using System.Diagnostics;
using System.Runtime.ExceptionServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Tests.Locking;

[Collection(ProcessMemoryFigures.Name)]
public sealed class MmapLockTests(ITestOutputHelper output)
{
    private const int ManyRegions = 100_000;

    private static readonly long Page = Environment.SystemPageSize;

    private static long VmLck => ProcessStatus.ReadStatusBytes("VmLck");

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable32MiB))]
    public void Lock_RaisesVmLck_ByTheLockedBytes_AndDisposeLowersItAgain()
    {
        using TestFile file = TestFile.Create(32 * TestFile.MiB);
        using MappedFile map = file.Map();
        long before = VmLck;

        LockLease lease = MmapLock.Lock([map.Region("weights")]);
        long locked = VmLck;
        lease.Dispose();

        Assert.True(lease.IsFullyLocked, lease.Failures.Count > 0 ? lease.Failures[0].Message : null);
        Assert.Equal(32 * TestFile.MiB, lease.LockedBytes);
        Assert.Equal(32 * TestFile.MiB, locked - before);
        Assert.Equal(before, VmLck);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Tmpfs))] // root: locks 4 MiB
    [SupportedOSPlatform("linux")]
    public void Lock_OfASparseFileOnASmallTmpfs_LocksOnlyItsData_AndTakesNoSpace()
    {
        // mlock faults every page in, and a fault on a hole of a tmpfs file takes a page of the file system for good:
        // a lock of a 1 GiB sparse file filled a 600 MiB tmpfs (the next write failed with ENOSPC, after the lease too).
        const long MiB = TestFile.MiB;
        using TmpfsMount tmpfs = TmpfsMount.Create(32 * MiB);
        string path = Path.Combine(tmpfs.Path, "sparse.bin");
        using (var stream = new FileStream(path, FileMode.CreateNew, FileAccess.Write))
        {
            stream.SetLength(256 * MiB);
            byte[] data = new byte[4 * MiB];
            Random.Shared.NextBytes(data);
            stream.Write(data); // the first 4 MiB are data, the rest a hole
        }

        using Mappings.NativeMmap map = Mappings.NativeMmap.Map(path, 0, 256 * MiB, shared: true);
        long usedBefore = tmpfs.UsedBytes;

        using LockLease lease = MmapLock.Lock([new PrefaultRegion(map.Address, 256 * MiB, "sparse")]);

        output.WriteLine($"locked {lease.LockedBytes} of {lease.RequestedBytes}; tmpfs {usedBefore} -> {tmpfs.UsedBytes} bytes used");
        Assert.InRange(tmpfs.UsedBytes - usedBefore, 0, MiB); // was: the tmpfs filled to its 32 MiB
        Assert.True(lease.IsFullyLocked, lease.Failures.Count > 0 ? lease.Failures[0].Message : null);
        Assert.Equal(4 * MiB, lease.LockedBytes);
        Assert.Equal(4 * MiB, lease.RequestedBytes); // the holes are nothing to lock
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable64MiB))]
    public void Lock_OfACopyOnWriteView_RefusesIt_AndCopiesNoPage()
    {
        // mlock faults a writable private mapping's pages in for writing: every page became a private copy (smaps
        // Anonymous +64 MiB for a 64 MiB view of a cached file) while the gate counted the cache as free.
        using TestFile file = TestFile.Create(64 * TestFile.MiB, evict: false);
        using MappedFile copyOnWrite = file.Map(System.IO.MemoryMappedFiles.MemoryMappedFileAccess.CopyOnWrite);
        using MappedFile readOnly = file.Map();

        using LockLease lease = MmapLock.Lock([copyOnWrite.Region("engine"), readOnly.Region("weights")]);

        Assert.Equal(64 * TestFile.MiB, lease.LockedBytes); // the read-only view only
        RegionFailure refused = Assert.Single(lease.Failures);
        Assert.Equal("engine", refused.Name);
        Assert.Contains("copy-on-write", refused.Message, StringComparison.Ordinal);
        Assert.Equal(0, AnonymousBytesAt(copyOnWrite.Region().Address));
    }

    private static long AnonymousBytesAt(nint address)
    {
        SmapsSnapshot smaps = ProcMaps.ReadSelfSmaps();
        int i = Array.FindIndex(smaps.Maps, m => (nuint)m.Start <= (nuint)address && (nuint)address < (nuint)m.End);
        Assert.True(i >= 0, "the view is not in /proc/self/smaps");
        return smaps.Figures[i].AnonymousBytes;
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Lock_OfAnUnalignedRegion_LocksTheWholePagesItTouches()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using MappedFile map = file.Map();

        using LockLease lease = MmapLock.Lock([map.Region(100, Page)]);

        Assert.Equal(2 * Page, lease.LockedBytes);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Dispose_OfOneOfTwoLeasesSharingAPage_KeepsTheSharedPageLocked()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using MappedFile map = file.Map();
        long before = VmLck;
        LockLease first = MmapLock.Lock([map.Region(0, Page + 100)]);
        LockLease second = MmapLock.Lock([map.Region(Page + 100, 2 * Page)]);

        first.Dispose();
        long afterFirst = VmLck - before;
        second.Dispose();

        Assert.Equal(3 * Page, afterFirst);
        Assert.Equal(before, VmLck);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Dispose_IsIdempotent_AndSafeFromManyThreads()
    {
        using TestFile file = TestFile.Create(4 * TestFile.MiB);
        using MappedFile map = file.Map();
        long before = VmLck;
        LockLease lease = MmapLock.Lock([map.Region()]);

        Parallel.For(0, 8, _ => lease.Dispose());
        lease.Dispose();

        Assert.True(lease.IsDisposed);
        Assert.Equal(before, VmLck);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Lock_OfAnUnmappedRange_ReportsIt_InsteadOfThrowing()
    {
        nint address = Unmapped.Address(TestFile.MiB);

        using LockLease lease = MmapLock.Lock([new PrefaultRegion(address, TestFile.MiB, "gone")]);

        Assert.False(lease.IsFullyLocked);
        Assert.Equal(0, lease.LockedBytes);
        RegionFailure failure = Assert.Single(lease.Failures);
        Assert.Equal("gone", failure.Name);
        Assert.Contains("not (wholly) mapped", failure.Message, StringComparison.Ordinal);
    }

    /// <summary>
    /// Root holds CAP_IPC_LOCK, which bypasses RLIMIT_MEMLOCK. Capabilities are per thread on Linux, so a thread of
    /// this test drops it from its own effective set and locks more than the soft limit: the kernel refuses with
    /// ENOMEM exactly as for an unprivileged engine. The rest of the process keeps its capabilities.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [SupportedOSPlatform("linux")]
    public void Lock_PastRlimitMemlock_ReportsTheLimitAndHowToRaiseIt_AndDoesNotThrow()
    {
        using TestFile file = TestFile.Create(32 * TestFile.MiB);
        using MappedFile map = file.Map();
        (ulong soft, _) = NativeTestMethods.GetMemlockLimit();
        bool lowered = soft > 8 * (ulong)TestFile.MiB;
        if (lowered)
        {
            NativeTestMethods.SetMemlockSoftLimit((ulong)TestFile.MiB);
        }

        long before = VmLck;
        try
        {
            using LockLease lease = LockWithoutIpcLock(map.Region("weights"));

            Assert.False(lease.IsFullyLocked);
            Assert.Equal(0, lease.LockedBytes);
            Assert.Equal(before, VmLck);
            RegionFailure failure = Assert.Single(lease.Failures);
            output.WriteLine(failure.Message);
            Assert.Equal(PlatformError.FromErrno("mlock", global::Interop.LinuxConstants.ENOMEM), failure.Error);
            (ulong current, ulong hard) = NativeTestMethods.GetMemlockLimit();
            Assert.Contains($"RLIMIT_MEMLOCK is soft {current} bytes", failure.Message, StringComparison.Ordinal);
            Assert.Contains(hard == ulong.MaxValue ? "hard unlimited" : $"hard {hard} bytes", failure.Message, StringComparison.Ordinal);
            Assert.Contains("ulimit -l", failure.Message, StringComparison.Ordinal);
            Assert.Contains("LimitMEMLOCK=", failure.Message, StringComparison.Ordinal);
            Assert.Contains("--ulimit memlock=", failure.Message, StringComparison.Ordinal);
            Assert.Contains("CAP_IPC_LOCK", failure.Message, StringComparison.Ordinal);
        }
        finally
        {
            if (lowered)
            {
                NativeTestMethods.SetMemlockSoftLimit(soft);
            }
        }
    }

    /// <summary>
    /// Each lock and unlock updates the process's registry of held ranges. Done range by range, every update walked
    /// the whole registry, and 100k tensors took minutes; the registry now takes a lease's ranges in one pass. The
    /// test counts the registry entries walked (a number, not a time: timings belong in the benchmarks).
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable100000Pages))]
    public void Lock_AndDispose_OfManyRegions_WalkTheRegistryLinearly()
    {
        using TestFile file = TestFile.Create(ManyRegions * Page, evict: false);
        using MappedFile map = file.Map();
        var regions = new PrefaultRegion[ManyRegions];
        for (int i = 0; i < regions.Length; i++)
        {
            regions[i] = map.Region(i * Page, Page, $"blk.{i}");
        }

        long walkedBefore = LockRegistry.Process.EntriesWalked;
        var clock = Stopwatch.StartNew();
        LockLease lease = MmapLock.Lock(regions);
        TimeSpan locking = clock.Elapsed;
        lease.Dispose();
        long walked = LockRegistry.Process.EntriesWalked - walkedBefore;

        output.WriteLine($"{ManyRegions} regions: lock {locking.TotalSeconds:F2} s, lock and dispose {clock.Elapsed.TotalSeconds:F2} s, {walked} registry entries walked");
        Assert.True(lease.IsFullyLocked, lease.Failures.Count > 0 ? lease.Failures[0].Message : null);
        Assert.Equal(ManyRegions * Page, lease.LockedBytes);
        Assert.InRange(walked, 0, 8L * ManyRegions);
    }

    [Fact]
    public void Lock_WithNegativeLength_Throws()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => MmapLock.Lock([new PrefaultRegion(4096, -1)]));
    }

    [SupportedOSPlatform("linux")]
    private static LockLease LockWithoutIpcLock(PrefaultRegion region)
    {
        LockLease? lease = null;
        ExceptionDispatchInfo? error = null;
        var thread = new Thread(() =>
        {
            try
            {
                NativeTestMethods.DropIpcLockFromThisThread();
                lease = MmapLock.Lock([region]);
            }
            catch (Exception e)
            {
                error = ExceptionDispatchInfo.Capture(e);
            }
        });
        thread.Start();
        thread.Join();
        error?.Throw();
        return lease!;
    }
}
