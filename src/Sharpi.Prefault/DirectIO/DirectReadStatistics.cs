namespace Sharpi.Prefault;

/// <summary>What a <see cref="DirectFileReader"/> has done so far. An immutable snapshot.</summary>
public sealed class DirectReadStatistics
{
    // Built by the library only: a result reports what a call did.
    internal DirectReadStatistics()
    {
    }

    /// <summary>The reader's mode now.</summary>
    public DirectReadMode Mode { get; internal init; }

    /// <summary>Why the reader reads buffered, or null while it reads Direct.</summary>
    public string? FallbackReason { get; internal init; }

    /// <summary>File offsets and lengths of Direct I/O reads are multiples of this (1 when buffered).</summary>
    public int Alignment { get; internal init; }

    /// <summary>Bytes of one Direct I/O read, after fitting the cap and the alignment.</summary>
    public int BlockSize { get; internal init; }

    /// <summary>The most reads the reader runs at once.</summary>
    public int ReadsInFlight { get; internal init; }

    /// <summary>Staging-buffer bytes allocated now (never more than <see cref="DirectReadOptions.MaxInFlightBytes"/>).</summary>
    public long BufferBytes { get; internal init; }

    /// <summary>The most staging-buffer bytes that had reads in flight at one time.</summary>
    public long PeakInFlightBytes { get; internal init; }

    /// <summary>Bytes copied to callers, both modes.</summary>
    public long BytesRead { get; internal init; }

    /// <summary>Of <see cref="BytesRead"/>, those read past the page cache.</summary>
    public long DirectBytesRead { get; internal init; }

    /// <summary>Calls to Read that returned.</summary>
    public long Reads { get; internal init; }

    /// <summary>Wall time spent inside Read.</summary>
    public TimeSpan Elapsed { get; internal init; }

    /// <summary><see cref="BytesRead"/> per second of <see cref="Elapsed"/>, in GiB/s (0 before the first read).</summary>
    public double GiBPerSecond => Elapsed > TimeSpan.Zero ? BytesRead / Sizes.GiB / Elapsed.TotalSeconds : 0;
}
