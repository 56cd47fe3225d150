namespace Sharpi.Prefault.Tests.Platform;

public sealed class LockRegistryTests
{
    private static List<(nint, nint)> Release(LockRegistry registry, nint start, nint end)
    {
        var unlocked = new List<(nint, nint)>();
        registry.Release(start, end, (s, e) => unlocked.Add((s, e)));
        return unlocked;
    }

    [Fact]
    public void Release_OfTheOnlyHolder_UnlocksTheWholeRange()
    {
        var registry = new LockRegistry();
        registry.Acquire(0x1000, 0x5000);

        Assert.Equal([(0x1000, 0x5000)], Release(registry, 0x1000, 0x5000));
        Assert.Empty(registry.Held());
    }

    [Fact]
    public void Release_OfOneOfTwoOverlappingHolders_UnlocksOnlyWhatTheOtherDoesNotHold()
    {
        var registry = new LockRegistry();
        registry.Acquire(0x1000, 0x4000);
        registry.Acquire(0x3000, 0x6000);

        Assert.Equal([(0x1000, 0x3000)], Release(registry, 0x1000, 0x4000));
        Assert.Equal([(0x3000, 0x6000)], registry.Held());
        Assert.Equal([(0x3000, 0x6000)], Release(registry, 0x3000, 0x6000));
    }

    [Fact]
    public void Acquire_OverAGapBetweenHeldRanges_FillsIt()
    {
        var registry = new LockRegistry();
        registry.Acquire(0x1000, 0x2000);
        registry.Acquire(0x3000, 0x4000);
        registry.Acquire(0x0000, 0x5000);

        Assert.Equal([(0x0000, 0x5000)], registry.Held());
        Assert.Equal([(0x0000, 0x1000), (0x2000, 0x3000), (0x4000, 0x5000)], Release(registry, 0x0000, 0x5000));
        Assert.Equal([(0x1000, 0x2000)], Release(registry, 0x1000, 0x2000));
    }

    [Fact]
    public void Release_OfARangeNobodyHolds_UnlocksNothing()
    {
        var registry = new LockRegistry();
        registry.Acquire(0x1000, 0x2000);

        Assert.Empty(Release(registry, 0x5000, 0x6000));
        Assert.Equal([(0x1000, 0x2000)], registry.Held());
    }

    [Fact]
    public void Acquire_OfManyRanges_InAnyOrder_CountsEachOnceMore()
    {
        var registry = new LockRegistry();
        registry.Acquire(0x2000, 0x6000);

        registry.Acquire([(0x5000, 0x8000), (0x0000, 0x1000), (0x3000, 0x4000)]);

        Assert.Equal([(0x0000, 0x1000), (0x2000, 0x8000)], registry.Held());
        Assert.Equal([(0x0000, 0x1000), (0x6000, 0x8000)], ReleaseAll(registry, [(0x6000, 0x8000), (0x0000, 0x1000), (0x5000, 0x6000), (0x3000, 0x4000)]));
        Assert.Equal([(0x2000, 0x6000)], registry.Held());
        Assert.Equal([(0x2000, 0x6000)], Release(registry, 0x2000, 0x6000));
    }

    [Fact]
    public void Release_OfManyRanges_SpanningHeldEntries_UnlocksOnlyTheFreedParts()
    {
        var registry = new LockRegistry();
        registry.Acquire([(0x1000, 0x3000), (0x4000, 0x6000), (0x7000, 0x9000)]);
        registry.Acquire(0x2000, 0x8000);

        List<(nint, nint)> unlocked = ReleaseAll(registry, [(0x0000, 0x3000), (0x4000, 0x9000)]);

        Assert.Equal([(0x1000, 0x2000), (0x6000, 0x7000), (0x8000, 0x9000)], unlocked);
        Assert.Equal([(0x2000, 0x6000), (0x7000, 0x8000)], registry.Held());
    }

    [Fact]
    public void AcquireUnlocked_LeavesOutPagesLockedOutsideTheRegistry_AndCountsTheRest()
    {
        // 0x2000-0x4000 is locked by the engine; 0x5000-0x6000 is locked by a lease the registry holds.
        var registry = new LockRegistry();
        registry.Acquire(0x5000, 0x6000);
        (nint, nint)[] lockedNow = [(0x2000, 0x4000), (0x5000, 0x6000)];

        (nint Start, nint End)[] claimed = registry.AcquireUnlocked([(0x4000, 0x8000), (0x1000, 0x3000)], (_, _) => lockedNow);

        Assert.Equal([(0x1000, 0x2000), (0x4000, 0x8000)], claimed);
        Assert.Equal([(0x1000, 0x2000), (0x4000, 0x8000)], registry.Held());
        Assert.Equal([(0x1000, 0x2000), (0x4000, 0x5000), (0x6000, 0x8000)], ReleaseAll(registry, claimed));
        Assert.Equal([(0x5000, 0x6000)], registry.Held());
    }

    [Fact]
    public void AcquireUnlocked_AsksForTheLockedPagesOfTheRangesSpan()
    {
        var registry = new LockRegistry();
        (nint Low, nint High) asked = default;

        registry.AcquireUnlocked([(0x7000, 0x8000), (0x1000, 0x2000)], (low, high) =>
        {
            asked = (low, high);
            return [];
        });

        Assert.Equal((0x1000, 0x8000), asked);
    }

    [Fact]
    public void Subtract_CutsEveryOverlap_AndKeepsTheRest()
    {
        (nint, nint)[] ranges = [(0x0000, 0x4000), (0x5000, 0x6000), (0x8000, 0xA000)];
        (nint, nint)[] cut = [(0x1000, 0x2000), (0x3000, 0x5800), (0x9000, 0xB000)];

        Assert.Equal([(0x0000, 0x1000), (0x2000, 0x3000), (0x5800, 0x6000), (0x8000, 0x9000)], LockRegistry.Subtract(ranges, cut));
    }

    private static List<(nint, nint)> ReleaseAll(LockRegistry registry, (nint Start, nint End)[] ranges)
    {
        var unlocked = new List<(nint, nint)>();
        registry.Release(ranges, (s, e) => unlocked.Add((s, e)));
        return unlocked;
    }
}
