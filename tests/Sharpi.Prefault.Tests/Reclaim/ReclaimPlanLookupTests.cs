using System.IO.MemoryMappedFiles;
using System.Runtime.Versioning;
using Sharpi.Prefault.Tests.Locking;
using Sharpi.Prefault.Tests.Mappings;

namespace Sharpi.Prefault.Tests.Reclaim;

/// <summary>
/// The plan from a direct look-up of the mappings (PROCMAP_QUERY, or one /proc/self/maps read) is only made for
/// read-only shared file views, and is the same plan the smaps walk makes for them; anything else is left to smaps.
/// </summary>
/// <remarks>
/// Alone, never beside another test: the look-up declines (null, smaps decides) while the process has memory locked
/// outside the leases it is given, and the lock tests and PinnedPages lock memory in this same process. Run beside
/// them (dotnet test --filter "FullyQualifiedName~Lock|FullyQualifiedName~Reclaim|FullyQualifiedName~Residency"),
/// these cases failed in 1 of 4 runs with a null plan.
/// </remarks>
[SupportedOSPlatform("linux")]
[Collection(SerializedEnvironment.Name)]
public sealed class ReclaimPlanLookupTests
{
    private static readonly long Page = Environment.SystemPageSize;

    public static TheoryData<bool> Lookups => new() { true, false };

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [MemberData(nameof(Lookups))]
    public void TryBuildFromLookup_OverAReadOnlySharedView_PlansWhatTheSmapsPlanDoes(bool useQuery)
    {
        using TestFile file = TestFile.Create(TestFile.MiB, evict: false);
        using MappedFile map = file.Map();
        MergedRegion[] regions = RegionSet.Merge([map.Region(Page / 2, 10 * Page, "a"), map.Region(20 * Page, 8 * Page, "b")]);

        ReclaimPlan? lookup = ReclaimPlan.TryBuildFromLookup(regions, [], useQuery);
        ReclaimPlan smaps = ReclaimPlan.Build(regions, ProcMaps.ReadSelfSmaps(), []);

        Assert.NotNull(lookup);
        Assert.Equal(smaps.Release, lookup.Release);
        Assert.Equal(smaps.Skipped, lookup.Skipped);
        Assert.Empty(lookup.Refusals);
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [MemberData(nameof(Lookups))]
    public void TryBuildFromLookup_OverAPrivateView_LeavesItToSmaps(bool useQuery)
    {
        using TestFile file = TestFile.Create(4 * Page, evict: false);
        using NativeMmap copyOnWrite = NativeMmap.Map(file.Path, 0, 4 * Page);

        Assert.Null(ReclaimPlan.TryBuildFromLookup(RegionSet.Merge([new PrefaultRegion(copyOnWrite.Address, copyOnWrite.Length)]), [], useQuery));
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [MemberData(nameof(Lookups))]
    public void TryBuildFromLookup_OverAWritableSharedView_LeavesItToSmaps(bool useQuery)
    {
        using TestFile file = TestFile.Create(TestFile.MiB, evict: false);
        using MappedFile readWrite = file.Map(MemoryMappedFileAccess.ReadWrite);

        Assert.Null(ReclaimPlan.TryBuildFromLookup(RegionSet.Merge([readWrite.Region()]), [], useQuery));
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [MemberData(nameof(Lookups))]
    public void TryBuildFromLookup_OverAnonymousMemory_LeavesItToSmaps(bool useQuery)
    {
        byte[] managed = GC.AllocateArray<byte>((int)(4 * Page), pinned: true);
        unsafe
        {
            fixed (byte* p = managed)
            {
                Assert.Null(ReclaimPlan.TryBuildFromLookup(RegionSet.Merge([new PrefaultRegion((nint)p, managed.Length)]), [], useQuery));
            }
        }
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [MemberData(nameof(Lookups))]
    public void TryBuildFromLookup_OverAViewWithALeaseInside_SkipsTheLeasedPages(bool useQuery)
    {
        using TestFile file = TestFile.Create(TestFile.MiB, evict: false);
        using MappedFile map = file.Map();
        PrefaultRegion whole = map.Region("weights");
        (nint, nint)[] held = [(whole.Address + (nint)(4 * Page), whole.Address + (nint)(8 * Page))];

        ReclaimPlan? plan = ReclaimPlan.TryBuildFromLookup(RegionSet.Merge([whole]), held, useQuery);

        Assert.NotNull(plan);
        RegionFailure skipped = Assert.Single(plan.Skipped);
        Assert.Equal(whole.Address + (nint)(4 * Page), skipped.Address);
        Assert.Equal(4 * Page, skipped.Length);
        Assert.Equal(TestFile.MiB - (4 * Page), plan.Release.Sum(r => r.Length));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public unsafe void Release_OfAViewPartlyLockedOutsideALease_ReleasesTheRest_AndSkipsTheLockedPart()
    {
        // mlock outside a lease: the look-up cannot see it (and madvise would refuse the whole call), so smaps decides.
        using TestFile file = TestFile.Create(4 * TestFile.MiB);
        using MappedFile map = file.Map();
        PrefaultRegion whole = map.Region("weights");
        Assert.Equal(0, global::Interop.Libc.Mlock((void*)whole.Address, (nuint)TestFile.MiB));
        try
        {
            ReclaimResult result = MmapReclaim.Release([whole]);

            Assert.Equal(3 * TestFile.MiB, result.BytesReleased);
            RegionFailure skipped = Assert.Single(result.Skipped);
            Assert.Equal(TestFile.MiB, skipped.Length);
            Assert.Contains("locked", skipped.Message, StringComparison.Ordinal);
            Assert.Equal(TestFile.MiB / Page, PageMap.CountPresent(whole.Address, TestFile.MiB));
        }
        finally
        {
            global::Interop.Libc.Munlock((void*)whole.Address, (nuint)TestFile.MiB);
        }
    }
}
