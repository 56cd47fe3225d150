namespace Sharpi.Prefault;

/// <summary>Warms a file into the page cache, or drops its pages so tests and benchmarks see it cold without root.</summary>
/// <remarks>The kernel keeps pages that a live process maps (this one included) or that are locked.</remarks>
public static partial class PageCache
{
    /// <summary>True where <see cref="Evict(string)"/> works (Linux).</summary>
    public static bool IsEvictSupported => OperatingSystem.IsLinux();

    /// <summary>Drops the file's cached pages (fsync + posix_fadvise DONTNEED).</summary>
    /// <returns>The file's residency after the call.</returns>
    /// <exception cref="PlatformNotSupportedException">Not on Linux.</exception>
    /// <exception cref="FileNotFoundException">The file does not exist.</exception>
    /// <exception cref="IOException">fsync or posix_fadvise failed; <see cref="Exception.HResult"/> is the errno.</exception>
    [SupportedOSPlatform("linux")]
    public static ResidencyInfo Evict(string path) => Evict(path, 0, 0);

    /// <summary>Drops the cached pages of a range (length 0: to the end).</summary>
    /// <returns>The range's residency after the call.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="offset"/> or <paramref name="length"/> is negative.</exception>
    /// <exception cref="PlatformNotSupportedException">Not on Linux.</exception>
    /// <exception cref="FileNotFoundException">The file does not exist.</exception>
    /// <exception cref="IOException">fsync or posix_fadvise failed; <see cref="Exception.HResult"/> is the errno.</exception>
    [SupportedOSPlatform("linux")]
    public static ResidencyInfo Evict(string path, long offset, long length)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        if (!OperatingSystem.IsLinux())
        {
            throw new PlatformNotSupportedException("PageCache.Evict needs posix_fadvise(POSIX_FADV_DONTNEED), which only Linux honours.");
        }

        FileStatus.ThrowIfNotRegular(path, allowDevices: true);
        bool regular = IsRegular(path);
        long fileLength;
        using (SafeFileHandle handle = FileOpener.OpenRead(path, allowDevices: true))
        {
            if (Interop.Libc.Fsync(handle) != 0)
            {
                ThrowHelper.ThrowEvictSyncFailed(path, Marshal.GetLastPInvokeError());
            }

            int error = Interop.Libc.PosixFadvise(handle, offset, length, Interop.LinuxConstants.POSIX_FADV_DONTNEED);
            if (error != 0)
            {
                ThrowHelper.ThrowEvictAdviseFailed(path, error);
            }

            fileLength = regular ? RandomAccess.GetLength(handle) : -1;
        }

        return Remaining(path, offset, length, fileLength);
    }

    [SupportedOSPlatform("linux")]
    private static bool IsRegular(string path)
    {
        try
        {
            return FileStatus.Of(path).Kind == FileKind.Regular;
        }
        catch (IOException)
        {
            return false;
        }
    }

    /// <summary>The evicted range's residency, clipped to the file; never throws (an error in the figure instead).</summary>
    [SupportedOSPlatform("linux")]
    private static ResidencyInfo Remaining(string path, long offset, long length, long fileLength)
    {
        if (fileLength < 0)
        {
            return new ResidencyInfo(0, 0, false, $"'{path}' is not a regular file (a device): the residency of its cache is not measured");
        }

        long start = Math.Min(offset, fileLength);
        long end = length == 0 || length > fileLength - start ? fileLength : start + length;
        try
        {
            return Residency.OfFile(path, start, end - start);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentOutOfRangeException)
        {
            // The file changed after the eviction, which was done.
            return new ResidencyInfo(end - start, 0, true, $"the residency after the eviction could not be measured: {e.Message}");
        }
    }
}
