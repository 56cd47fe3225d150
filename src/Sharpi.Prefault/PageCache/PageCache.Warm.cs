namespace Sharpi.Prefault;

public static partial class PageCache
{
    /// <summary>
    /// Reads the whole file into the page cache in the background without mapping it, so the process's RSS does not grow.
    /// </summary>
    /// <param name="path">The file to warm.</param>
    /// <param name="progress">Told the bytes read so far, from the warm-up's threads; one that throws is not called again.</param>
    /// <param name="cancellationToken">Stops the warm-up early.</param>
    /// <returns>What was read; a read error ends the warm-up and is reported there, never thrown.</returns>
    /// <exception cref="ArgumentException"><paramref name="path"/> is null or empty.</exception>
    /// <exception cref="IOException"><paramref name="path"/> names no regular file (never opened), or the file cannot be opened.</exception>
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
