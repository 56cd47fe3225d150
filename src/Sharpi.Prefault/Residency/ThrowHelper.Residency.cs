using System.Diagnostics.CodeAnalysis;

namespace Sharpi.Prefault;

internal static partial class ThrowHelper
{
    // The IOExceptions carry the errno as their HResult, as .NET's own file APIs do on Unix.

    [DoesNotReturn]
    internal static void ThrowEvictSyncFailed(string path, int errno) =>
        throw new IOException($"fsync of '{path}' failed before eviction: {Errno.Describe(errno)}.", errno);

    [DoesNotReturn]
    internal static void ThrowEvictAdviseFailed(string path, int errno) =>
        throw new IOException($"posix_fadvise(POSIX_FADV_DONTNEED) on '{path}' failed: {Errno.Describe(errno)}.", errno);
}
