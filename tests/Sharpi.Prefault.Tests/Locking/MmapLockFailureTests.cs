namespace Sharpi.Prefault.Tests.Locking;

/// <summary>
/// mlock answers ENOMEM for a range past the end of a truncated file, for a PROT_NONE page, for an unmapped range and
/// for RLIMIT_MEMLOCK: the lease must say which, and name the region the failure is in.
/// </summary>
[Collection(ProcessMemoryFigures.Name)]
public sealed class MmapLockFailureTests(ITestOutputHelper output)
{
    private const string LimitBlamed = "would pass the locked-memory limit";

    private static readonly long Page = Environment.SystemPageSize;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public void Lock_PastTheEndOfATruncatedFile_BlamesTheTruncation_NotTheLimit()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using MappedFile map = file.Map();
        Truncate(file, 256 * 1024);

        using LockLease lease = MmapLock.Lock([map.Region("weights")]);

        RegionFailure failure = Assert.Single(lease.Failures);
        output.WriteLine(failure.Message);
        Assert.Equal(PlatformError.FromErrno("mlock", global::Interop.LinuxConstants.ENOMEM), failure.Error);
        Assert.Contains("past the end of its file", failure.Message, StringComparison.Ordinal);
        Assert.Contains("is 262144 bytes long", failure.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(LimitBlamed, failure.Message, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public void Lock_OfAProtNonePage_SaysSo_NotTheLimit()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using MappedFile map = file.Map();
        nint start = map.Region().Address;
        Mprotect.Set(start + (nint)Page, Page, Mprotect.ProtNone);
        try
        {
            using LockLease lease = MmapLock.Lock([map.Region("weights")]);

            RegionFailure failure = Assert.Single(lease.Failures);
            output.WriteLine(failure.Message);
            Assert.Contains("PROT_NONE", failure.Message, StringComparison.Ordinal);
            Assert.DoesNotContain(LimitBlamed, failure.Message, StringComparison.Ordinal);
        }
        finally
        {
            Mprotect.Set(start + (nint)Page, Page, Mprotect.ProtRead);
        }
    }

    /// <summary>
    /// "a" and "b" share a page, so they lock as one range; the file ends inside "b". The failure is "b"'s, and "a",
    /// whose pages are all there, stays locked.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public void Lock_OfNeighboursSharingAPage_NamesTheOneThatFailed_AndLocksTheOther()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using MappedFile map = file.Map();
        Truncate(file, 2 * Page);

        using LockLease lease = MmapLock.Lock([map.Region(0, Page + 100, "a"), map.Region(Page + 100, 2 * Page - 100, "b")]);

        RegionFailure failure = Assert.Single(lease.Failures);
        Assert.Equal("b", failure.Name);
        Assert.Contains("past the end of its file", failure.Message, StringComparison.Ordinal);
        Assert.Equal(2 * Page, lease.LockedBytes);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public void Lock_OfManyRegionsThatFail_ReadsTheMappingsOnce()
    {
        const int count = 200;
        using TestFile file = TestFile.Create(2 * count * Page);
        using MappedFile map = file.Map();
        Truncate(file, Page);
        var regions = new PrefaultRegion[count];
        for (int i = 0; i < count; i++)
        {
            regions[i] = map.Region((2 * i + 1) * Page, Page, $"t{i}");
        }

        long readsBefore = LockDiagnosis.MapsReads;
        using LockLease lease = MmapLock.Lock(regions);

        Assert.Equal(count, lease.Failures.Count);
        Assert.Equal(1, LockDiagnosis.MapsReads - readsBefore);
    }

    private static void Truncate(TestFile file, long length)
    {
        using var stream = new FileStream(file.Path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete);
        stream.SetLength(length);
    }
}
