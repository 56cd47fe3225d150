using System.Runtime.Versioning;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests;

[SupportedOSPlatform("linux")] // every test is a LinuxFact
public sealed class PageCacheTests
{
    [LinuxFact]
    public void Evict_OfAFileTheKernelCannotSync_ThrowsIOExceptionCarryingTheErrno()
    {
        // A character device opens like a file, but fsync refuses it with EINVAL.
        IOException e = Assert.Throws<IOException>(() => PageCache.Evict("/dev/null"));

        Assert.Equal(global::Interop.LinuxConstants.EINVAL, e.HResult);
        Assert.Contains("fsync", e.Message, StringComparison.Ordinal);
    }
}
