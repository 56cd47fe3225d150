namespace Sharpi.Prefault;

/// <summary>What a <see cref="DirectFileReader"/> has done so far. An immutable snapshot.</summary>
public sealed record DirectReadStatistics
{
    /// <summary>The reader's mode now.</summary>
    public required DirectReadMode Mode { get; init; }

    /// <summary>Why the reader reads buffered, or null while it reads Direct.</summary>
    public string? FallbackReason { get; init; }

    /// <summary>File offsets and lengths of Direct I/O reads are multiples of this (1 when buffered).</summary>
    public int Alignment { get; init; }

    /// <summary>Bytes of one Direct I/O read, after fitting the cap and the alignment.</summary>
    public int BlockSize { get; init; }

    /// <summary>The most reads the reader runs at once.</summary>
    public int ReadsInFlight { get; init; }

    /// <summary>Staging-buffer bytes allocated now (never more than <see cref="DirectReadOptions.MaxInFlightBytes"/>).</summary>
    public long BufferBytes { get; init; }

    /// <summary>The most staging-buffer bytes that had reads in flight at one time.</summary>
    public long PeakInFlightBytes { get; init; }

    /// <summary>Bytes copied to callers, both modes.</summary>
    public long BytesRead { get; init; }

    /// <summary>Of <see cref="BytesRead"/>, those read past the page cache.</summary>
    public long DirectBytesRead { get; init; }

    /// <summary>Calls to Read that returned.</summary>
    public long Reads { get; init; }

    /// <summary>Wall time spent inside Read.</summary>
    public TimeSpan Elapsed { get; init; }

    /// <summary><see cref="BytesRead"/> per second of <see cref="Elapsed"/>, in GiB/s (0 before the first read).</summary>
    public double GiBPerSecond => Elapsed > TimeSpan.Zero ? BytesRead / Sizes.GiB / Elapsed.TotalSeconds : 0;
}
