using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>
/// Immutable settings for a <see cref="DirectFileReader"/>: <c>new DirectReadOptions { Logger = log }</c>; what is not
/// set keeps its default. Every setter validates.
/// </summary>
/// <remarks>The reader's staging buffers never exceed <see cref="MaxInFlightBytes"/> in all.</remarks>
public sealed class DirectReadOptions
{
    // The default size of one read: 32 MiB.
    internal const int DefaultBlockSize = 32 * 1024 * 1024;

    // The default number of reads in flight: 2.
    internal const int DefaultMaxReadsInFlight = 2;

    // The default cap on staging-buffer bytes: 64 MiB.
    internal const long DefaultMaxInFlightBytes = 64L * 1024 * 1024;

    // The smallest block and cap: 4 KiB, the largest alignment Direct I/O asks for in practice.
    internal const int MinBlockSize = 4096;

    // The largest block: 1 GiB.
    internal const int MaxBlockSize = 1 << 30;

    // The most reads in flight: 64.
    internal const int MaxReadsInFlightLimit = 64;

    // The largest cap on staging-buffer bytes: 16 GiB.
    internal const long MaxInFlightBytesLimit = 16L << 30;

    private readonly int _blockSize = DefaultBlockSize;
    private readonly int _maxReadsInFlight = DefaultMaxReadsInFlight;
    private readonly long _maxInFlightBytes = DefaultMaxInFlightBytes;

    // The options of a call that passes none; shared, since nothing can change them.
    internal static DirectReadOptions Default { get; } = new();

    /// <summary>Bytes of one read (4 KiB to 1 GiB; rounded down to the file's alignment). Default 32 MiB.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 4 KiB to 1 GiB.</exception>
    public int BlockSize
    {
        get => _blockSize;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, MinBlockSize);
            ArgumentOutOfRangeException.ThrowIfGreaterThan(value, MaxBlockSize);
            _blockSize = value;
        }
    }

    /// <summary>
    /// The most blocks read at once, each on its own thread (1 to 64). One read in flight leaves the disk idle while a
    /// block is copied out; two keep it busy. Default 2.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 1 to 64.</exception>
    public int MaxReadsInFlight
    {
        get => _maxReadsInFlight;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            ArgumentOutOfRangeException.ThrowIfGreaterThan(value, MaxReadsInFlightLimit);
            _maxReadsInFlight = value;
        }
    }

    /// <summary>
    /// The cap on the reader's staging buffers, in bytes (4 KiB to 16 GiB). Reads in flight and the block size are cut
    /// to fit: <c>reads * block &lt;= cap</c>. Default 64 MiB.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 4 KiB to 16 GiB.</exception>
    public long MaxInFlightBytes
    {
        get => _maxInFlightBytes;
        init
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, MinBlockSize);
            ArgumentOutOfRangeException.ThrowIfGreaterThan(value, MaxInFlightBytesLimit);
            _maxInFlightBytes = value;
        }
    }

    /// <summary>False reads buffered (through the page cache) everywhere, for comparison runs. Default true.</summary>
    public bool IsDirectIOEnabled { get; init; } = true;

    /// <summary>Where the reader logs its mode at open (Debug) and any fallback to buffered reads (Information, once). Default: none.</summary>
    public ILogger? Logger { get; init; }

    /// <summary>Test seam: when nonzero, the first Direct I/O read fails with this errno instead of reading.</summary>
    internal int SimulatedFirstReadErrno { get; init; }
}
