using System.Diagnostics.CodeAnalysis;

namespace Sharpi.Prefault;

internal static partial class ThrowHelper
{
    [DoesNotReturn]
    internal static void ThrowReadFailed(string path, long offset, long length, int errno) =>
        throw new IOException($"Reading {length} bytes at offset {offset} of '{path}' failed: {Errno.Describe(errno)}.");

    [DoesNotReturn]
    internal static void ThrowNullDestination(string name) =>
        throw new ArgumentNullException(name, "The destination pointer is null but the length is not zero. Pass memory of at least the length.");
}
