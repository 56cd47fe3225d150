using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

/// <summary>
/// Drops a file's pages from the page cache so tests and benchmarks see a cold file without root
/// (no <c>echo 3 &gt; /proc/sys/vm/drop_caches</c>).
/// </summary>
/// <remarks>
/// The kernel keeps pages that are mapped into a live process or dirty; <see cref="Evict(string)"/> writes dirty
/// pages back first (fsync), but a mapping still open anywhere keeps its resident pages. Dispose your views first.
/// </remarks>
public static partial class PageCache
{
    /// <summary>True where <see cref="Evict(string)"/> works (Linux).</summary>
    public static bool IsEvictSupported => OperatingSystem.IsLinux();

    /// <summary>Writes the file's dirty pages back and asks the kernel to drop all its cached pages (fsync + posix_fadvise DONTNEED).</summary>
    /// <exception cref="PlatformNotSupportedException">Not on Linux.</exception>
    /// <exception cref="FileNotFoundException">The file does not exist.</exception>
    /// <exception cref="IOException">fsync or posix_fadvise failed; <see cref="Exception.HResult"/> is the errno.</exception>
    [SupportedOSPlatform("linux")]
    public static void Evict(string path) => Evict(path, 0, 0);

    /// <summary>
    /// Drops the cached pages of <paramref name="length"/> bytes at <paramref name="offset"/> (a length of 0 means
    /// to the end of the file). Only whole pages inside the range are dropped.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="offset"/> or <paramref name="length"/> is negative.</exception>
    /// <exception cref="PlatformNotSupportedException">Not on Linux.</exception>
    /// <exception cref="FileNotFoundException">The file does not exist.</exception>
    /// <exception cref="IOException">fsync or posix_fadvise failed; <see cref="Exception.HResult"/> is the errno.</exception>
    [SupportedOSPlatform("linux")]
    public static void Evict(string path, long offset, long length)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        if (!OperatingSystem.IsLinux())
        {
            throw new PlatformNotSupportedException("PageCache.Evict needs posix_fadvise(POSIX_FADV_DONTNEED), which only Linux honours.");
        }

        FileStatus.ThrowIfNotRegular(path, allowDevices: true);
        using SafeFileHandle handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        if (Interop.Libc.Fsync(handle) != 0)
        {
            ThrowHelper.ThrowEvictSyncFailed(path, Marshal.GetLastPInvokeError());
        }

        int error = Interop.Libc.PosixFadvise(handle, offset, length, Interop.LinuxConstants.POSIX_FADV_DONTNEED);
        if (error != 0)
        {
            ThrowHelper.ThrowEvictAdviseFailed(path, error);
        }
    }
}
