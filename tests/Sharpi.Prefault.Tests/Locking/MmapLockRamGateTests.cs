namespace Sharpi.Prefault.Tests.Locking;

/// <summary>
/// Locked pages cannot be reclaimed: a lock past the memory that can hold them ends in the OOM killer. The RAM gate
/// that limits a prefault limits a lock too, in the order the regions are given.
/// </summary>
[Collection(ProcessMemoryFigures.Name)]
public sealed class MmapLockRamGateTests
{
    private const long Region = 4 * TestFile.MiB;

    private static readonly long Page = Environment.SystemPageSize;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable12MiB))]
    public void Lock_PastTheBudget_LocksTheRegionsListedFirst_AndNamesTheRest()
    {
        using TestFile file = TestFile.Create(3 * Region);
        using MappedFile map = file.Map();
        double fraction = 1.5 * Region / Capacity();

        using LockLease lease = MmapLock.Lock(
            [map.Region(2 * Region, Region, "first"), map.Region(0, Region, "second"), map.Region(Region, Region, "third")],
            new LockOptions { RamFraction = fraction });

        Assert.True(lease.Decision.IsPartial, lease.Decision.Reason);
        Assert.InRange(lease.LockedBytes, (3 * Region / 2) - (2 * Page), (3 * Region / 2) + (2 * Page));
        Assert.Equal(["second", "third"], lease.Failures.Select(f => f.Name));
        Assert.All(lease.Failures, f => Assert.Contains("RAM gate", f.Message, StringComparison.Ordinal));
        Assert.Equal(Region - (lease.LockedBytes - Region), lease.Failures[0].Length);
        Assert.Equal(Region, lease.Failures[1].Length);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Lock_WhenNothingFits_LocksNothing_AndSaysWhy()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using MappedFile map = file.Map();

        using LockLease lease = MmapLock.Lock([map.Region("weights")], new LockOptions { RamFraction = 1e-15 });

        Assert.False(lease.Decision.ShouldRun, lease.Decision.Reason);
        Assert.Equal(0, lease.LockedBytes);
        RegionFailure failure = Assert.Single(lease.Failures);
        Assert.Equal("weights", failure.Name);
        Assert.Equal(TestFile.MiB, failure.Length);
        Assert.Contains("does not fit", failure.Message, StringComparison.Ordinal);
        Assert.Contains("RamGate.Always", failure.Message, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public void Lock_WithRamGateAlways_LocksEverything_WhateverTheBudget()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using MappedFile map = file.Map();

        using LockLease lease = MmapLock.Lock([map.Region("weights")], new LockOptions { RamFraction = 1e-15, RamGate = RamGate.Always });

        Assert.True(lease.IsFullyLocked, lease.Failures.Count > 0 ? lease.Failures[0].Message : null);
        Assert.Equal(TestFile.MiB, lease.LockedBytes);
        Assert.Contains("RamGate.Always", lease.Decision.Reason, StringComparison.Ordinal);
    }

    // What the gate weighs for an evicted file (nothing resident): min(MemAvailable, cgroup limit).
    private static double Capacity()
    {
        MemoryFigures memory = MemoryFigures.Current();
        long available = memory.AvailableBytes ?? throw new InvalidOperationException("MemAvailable unknown");
        return memory.CgroupLimitBytes is long limit ? Math.Min(available, limit) : available;
    }
}
