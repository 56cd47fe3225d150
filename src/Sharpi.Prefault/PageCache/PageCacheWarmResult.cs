namespace Sharpi.Prefault;

/// <summary>What <see cref="PageCache.WarmAsync"/> read into the page cache. An immutable snapshot.</summary>
public sealed class PageCacheWarmResult
{
    // Built by the library only: a result reports what a call did.
    internal PageCacheWarmResult()
    {
    }

    /// <summary>The file warmed.</summary>
    public string Path { get; internal init; } = string.Empty;

    /// <summary>The file's length when the warm-up began.</summary>
    public long FileLength { get; internal init; }

    /// <summary>Bytes the warm-up saw to: read through the page cache, or found cached whole already (<see cref="BytesAlreadyCached"/>).</summary>
    public long BytesRead { get; internal init; }

    /// <summary>Of <see cref="BytesRead"/>, the bytes of chunks the page cache already held whole (Linux 6.5+'s cachestat), which were not read again.</summary>
    public long BytesAlreadyCached { get; internal init; }

    /// <summary>Wall time from the call to the last read.</summary>
    public TimeSpan Elapsed { get; internal init; }

    /// <summary>True when the cancellation token stopped the warm-up before the end of the file.</summary>
    public bool IsCanceled { get; internal init; }

    /// <summary>How the pages were read: <c>sendfile</c> (Linux: into /dev/null, no copy) or <c>read</c> (into a small reused buffer).</summary>
    public string Method { get; internal init; } = string.Empty;

    /// <summary>Why the warm-up stopped early on an error (an I/O error, a file truncated while it ran), or null. Never thrown.</summary>
    public string? Error { get; internal init; }

    /// <summary>True when every byte of the file was read.</summary>
    public bool IsComplete => BytesRead >= FileLength && Error is null && !IsCanceled;

    /// <summary><see cref="BytesRead"/> per second of <see cref="Elapsed"/>, in GiB/s (0 before the first read).</summary>
    public double GiBPerSecond => Elapsed > TimeSpan.Zero ? BytesRead / Sizes.GiB / Elapsed.TotalSeconds : 0;
}
