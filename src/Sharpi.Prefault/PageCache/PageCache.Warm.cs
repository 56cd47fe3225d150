using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

public static partial class PageCache
{
    /// <summary>
    /// Reads the whole file into the page cache in the background, without mapping it: the process's RSS does not grow
    /// by the file (a mapping of it would, for as long as it stays open).
    /// </summary>
    /// <remarks>
    /// A few background threads read the file in 8 MiB chunks; a chunk the page cache already holds whole (cachestat,
    /// Linux 6.5+) is not read again, and the others are first advised with <c>posix_fadvise(POSIX_FADV_WILLNEED)</c>
    /// so the device sees whole chunks whatever the read-ahead setting; on Linux the chunks are sent to /dev/null with
    /// <c>sendfile</c> (the kernel reads them into the page cache and copies nothing), elsewhere (or where sendfile is
    /// refused) read into one small buffer per thread.
    /// </remarks>
    /// <param name="path">The file to warm.</param>
    /// <param name="progress">Told the bytes read so far after each chunk, from the warm-up's threads; one that throws is not called again.</param>
    /// <param name="cancellationToken">Stops the warm-up early.</param>
    /// <returns>A task that completes when the whole file was read, the token was cancelled, or an error ended it.</returns>
    /// <exception cref="ArgumentException"><paramref name="path"/> is null or empty.</exception>
    /// <exception cref="IOException"><paramref name="path"/> holds a NUL, or names no regular file (a directory, a FIFO, a socket or a device, which is never opened), or the file cannot be opened.</exception>
    /// <exception cref="FileNotFoundException">The file does not exist.</exception>
    /// <exception cref="UnauthorizedAccessException">The file cannot be opened for reading.</exception>
    public static ValueTask<PageCacheWarmResult> WarmAsync(string path, IProgress<long>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        FileStatus.ThrowIfNotRegular(path);
        SafeFileHandle file = FileOpener.OpenRead(path);
        if (OperatorSettings.IsOffNow)
        {
            long length;
            using (file)
            {
                length = RandomAccess.GetLength(file);
            }

            return new ValueTask<PageCacheWarmResult>(new PageCacheWarmResult
            {
                Path = path,
                FileLength = length,
                Method = "none",
                Error = OperatorSettings.OffReason,
            });
        }

        return new ValueTask<PageCacheWarmResult>(FileWarmup.Start(path, file, progress, cancellationToken));
    }
}
