using System.Runtime.Versioning;

namespace Sharpi.Prefault.Tests;

[SupportedOSPlatform("linux")] // every test needs Requirements.Linux
public sealed class PageCacheTests
{
    /// <summary>
    /// The kernel keeps the pages a live process maps. Evict returned nothing, so a caller that still mapped the file
    /// (a view of its own) saw no sign that the file stayed warm; it now returns what stayed.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Evict_OfAFileThisProcessStillMaps_ReturnsThePagesTheKernelKept()
    {
        using TestFile file = TestFile.Create(4 * TestFile.MiB, evict: false);
        MappedFile map = file.Map();
        PageTouch.TouchEveryPage(map.Region());

        ResidencyInfo whileMapped = PageCache.Evict(file.Path);
        map.Dispose();
        ResidencyInfo afterUnmap = PageCache.Evict(file.Path);

        Assert.Equal(4 * TestFile.MiB, whileMapped.Bytes);
        Assert.Equal(4 * TestFile.MiB, whileMapped.ResidentBytes);
        Assert.Null(whileMapped.Error);
        Assert.Equal(4 * TestFile.MiB, afterUnmap.Bytes);
        Assert.Equal(0, afterUnmap.ResidentBytes);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Evict_OfARange_ReturnsTheRangesResidency_ClippedToTheFile()
    {
        long page = Environment.SystemPageSize;
        using TestFile file = TestFile.Create(TestFile.MiB, evict: false);
        _ = File.ReadAllBytes(file.Path);

        ResidencyInfo range = PageCache.Evict(file.Path, 100, 4 * page);
        ResidencyInfo pastTheEnd = PageCache.Evict(file.Path, TestFile.MiB - page, 8 * page);

        // Which edge pages stay depends on the page cache's folio sizes: the figure is the range's, as measured after.
        Assert.Equal(4 * page, range.Bytes);
        Assert.Equal(Residency.OfFile(file.Path, 100, 4 * page).ResidentBytes, range.ResidentBytes);
        Assert.True(Residency.OfFile(file.Path).ResidentBytes > range.ResidentBytes, "the rest of the file stays cached");
        Assert.Equal(page, pastTheEnd.Bytes);
        Assert.Equal(Residency.OfFile(file.Path, TestFile.MiB - page, page).ResidentBytes, pastTheEnd.ResidentBytes);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Evict_OfAFileTheKernelCannotSync_ThrowsIOExceptionCarryingTheErrno()
    {
        // A character device opens like a file, but fsync refuses it with EINVAL.
        IOException e = Assert.Throws<IOException>(() => PageCache.Evict("/dev/null"));

        Assert.Equal(global::Interop.LinuxConstants.EINVAL, e.HResult);
        Assert.Contains("fsync", e.Message, StringComparison.Ordinal);
    }
}
