using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>Immutable settings for a <see cref="DirectFileReader"/>; every setter validates.</summary>
/// <remarks>The reader's staging buffers never exceed <see cref="MaxInFlightBytes"/> in all.</remarks>
public sealed class DirectReadOptions
{
    internal const int DefaultBlockSize = 32 * 1024 * 1024;

    internal const int DefaultMaxReadsInFlight = 2;

    internal const long DefaultMaxInFlightBytes = 64L * 1024 * 1024;

    // 4 KiB: the largest alignment Direct I/O asks for in practice.
    internal const int MinBlockSize = 4096;

    internal const int MaxBlockSize = 1 << 30;

    internal const int MaxReadsInFlightLimit = 64;

    internal const long MaxInFlightBytesLimit = 16L << 30;

    private readonly int _blockSize = DefaultBlockSize;
    private readonly int _maxReadsInFlight = DefaultMaxReadsInFlight;
    private readonly long _maxInFlightBytes = DefaultMaxInFlightBytes;

    internal static DirectReadOptions Default { get; } = new();

    /// <summary>Bytes of one read. Default 32 MiB.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 4 KiB to 1 GiB.</exception>
    public int BlockSize { get => _blockSize; init => _blockSize = ThrowHelper.InRange(value, MinBlockSize, MaxBlockSize); }

    /// <summary>The most blocks read at once. Default 2.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 1 to 64.</exception>
    public int MaxReadsInFlight { get => _maxReadsInFlight; init => _maxReadsInFlight = ThrowHelper.InRange(value, 1, MaxReadsInFlightLimit); }

    /// <summary>The cap on staging-buffer bytes. Default 64 MiB.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is outside 4 KiB to 16 GiB.</exception>
    public long MaxInFlightBytes { get => _maxInFlightBytes; init => _maxInFlightBytes = ThrowHelper.InRange(value, MinBlockSize, MaxInFlightBytesLimit); }

    /// <summary>False reads buffered everywhere. Default true.</summary>
    public bool IsDirectIOEnabled { get; init; } = true;

    /// <summary>Where the reader logs. Default: none.</summary>
    public ILogger? Logger { get; init; }

    /// <summary>Test seam: when nonzero, the first Direct I/O read fails with this errno instead of reading.</summary>
    internal int SimulatedFirstReadErrno { get; init; }
}
