using System.Buffers;
using System.Diagnostics;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Sharpi.Prefault;

/// <summary>
/// Reads byte ranges of a file past the page cache (Direct I/O) into the caller's memory.
/// </summary>
/// <remarks>Thread-safe: reads run one at a time. Falls back to buffered reads where Direct I/O is refused.</remarks>
public sealed partial class DirectFileReader : IDisposable, IAsyncDisposable
{
    private readonly SemaphoreSlim _readGate = new(1, 1);
    private readonly object _statisticsLock = new();
    private readonly WorkerThreads _workers = new();
    private readonly ILogger _logger;
    private readonly int _offsetAlignment;
    private readonly int _memoryAlignment;
    private readonly int _blockSize;
    private readonly int _readsInFlight;
    private readonly StagingBuffers _buffers;
    private SafeFileHandle _handle;
    private volatile DirectReadMode _mode;
    private volatile string? _fallbackReason;
    private int _simulatedErrno;
    private int _threadsRefused;
    private bool _disposed;

    private long _bytesRead;
    private long _directBytesRead;
    private long _reads;
    private long _elapsedTicks;

    private DirectFileReader(string path, OpenedFile file, DirectReadOptions options, ILogger logger)
    {
        Path = path;
        _handle = file.Handle;
        _mode = file.Mode;
        _fallbackReason = file.FallbackReason;
        _logger = logger;
        _offsetAlignment = file.OffsetAlignment;
        _memoryAlignment = Math.Max(file.MemoryAlignment, 1);
        _simulatedErrno = options.SimulatedFirstReadErrno;

        // Fit the cap: reads * block <= MaxInFlightBytes, the block a multiple of the alignment.
        int alignment = Math.Max(file.OffsetAlignment, 1);
        long block = Math.Min(options.BlockSize, options.MaxInFlightBytes) / alignment * alignment;
        _blockSize = (int)Math.Max(block, alignment);
        _readsInFlight = (int)Math.Clamp(options.MaxInFlightBytes / _blockSize, 1, options.MaxReadsInFlight);
        int bufferAlignment = Math.Max(Math.Max(file.MemoryAlignment, file.OffsetAlignment), Environment.SystemPageSize);
        _buffers = new StagingBuffers(_readsInFlight, _blockSize, bufferAlignment);
    }

    /// <summary>The file's path as given to <see cref="Open"/>.</summary>
    public string Path { get; }

    /// <summary>Direct until refused, then Buffered for good.</summary>
    public DirectReadMode Mode => _mode;

    /// <summary>Why the reader reads buffered, or null.</summary>
    public string? FallbackReason => _fallbackReason;

    /// <summary>The file's length now, in bytes.</summary>
    /// <exception cref="ObjectDisposedException">The reader is disposed.</exception>
    public long Length
    {
        get
        {
            _readGate.Wait();
            try
            {
                ObjectDisposedException.ThrowIf(_disposed, this);
                return RandomAccess.GetLength(_handle);
            }
            finally
            {
                _readGate.Release();
            }
        }
    }

    /// <summary>A snapshot of the mode, buffers and bytes read; does not wait.</summary>
    public DirectReadStatistics Statistics
    {
        get
        {
            lock (_statisticsLock)
            {
                bool direct = _mode == DirectReadMode.Direct;
                return new DirectReadStatistics
                {
                    Mode = _mode,
                    FallbackReason = _fallbackReason,
                    Alignment = direct ? _offsetAlignment : 1,
                    BlockSize = _blockSize,
                    ReadsInFlight = _readsInFlight,
                    BufferBytes = _buffers.AllocatedBytes,
                    PeakInFlightBytes = _buffers.PeakBytesInFlight,
                    BytesRead = _bytesRead,
                    DirectBytesRead = _directBytesRead,
                    Reads = _reads,
                    Elapsed = Stopwatch.GetElapsedTime(0, _elapsedTicks),
                };
            }
        }
    }

    /// <summary>Opens <paramref name="path"/> for Direct reads where allowed, else buffered.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="path"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="path"/> is empty.</exception>
    /// <exception cref="FileNotFoundException">The file does not exist.</exception>
    /// <exception cref="UnauthorizedAccessException">The file may not be read, or is a directory.</exception>
    /// <exception cref="IOException">The file cannot be opened.</exception>
    public static DirectFileReader Open(string path, DirectReadOptions? options = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        options ??= DirectReadOptions.Default;
        ILogger logger = options.Logger ?? NullLogger.Instance;
        OpenedFile file = DirectFileOpener.Open(path, options.IsDirectIOEnabled);
        var reader = new DirectFileReader(path, file, options, logger);
        if (file.FallbackReason is not null)
        {
            Log.DirectIOFallback(logger, path, file.FallbackReason);
        }
        else
        {
            Log.DirectIOOpened(logger, path, file.OffsetAlignment, file.AlignmentSource, file.MemoryAlignment, reader._readsInFlight, reader._blockSize);
        }

        return reader;
    }

    /// <summary>Reads at <paramref name="offset"/> into <paramref name="destination"/>; returns the bytes read.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="offset"/> is negative.</exception>
    /// <exception cref="ObjectDisposedException">The reader is disposed.</exception>
    /// <exception cref="OperationCanceledException">The token was cancelled between blocks.</exception>
    /// <exception cref="IOException">A read failed; the message names the file, the offset and the OS error.</exception>
    public unsafe int Read(long offset, Span<byte> destination, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        fixed (byte* target = destination)
        {
            return (int)ReadCore(offset, target, destination.Length, cancellationToken);
        }
    }

    /// <summary>Reads into native memory (past 2 GiB); returns the bytes read.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="offset"/> or <paramref name="length"/> is negative.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="destination"/> is zero and <paramref name="length"/> is not.</exception>
    /// <exception cref="ObjectDisposedException">The reader is disposed.</exception>
    /// <exception cref="OperationCanceledException">The token was cancelled between blocks.</exception>
    /// <exception cref="IOException">A read failed; the message names the file, the offset and the OS error.</exception>
    public unsafe long Read(long offset, nint destination, long length, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        if (destination == 0 && length > 0)
        {
            ThrowHelper.ThrowNullDestination(nameof(destination));
        }

        return ReadCore(offset, (byte*)destination, length, cancellationToken);
    }

    /// <summary>Reads without holding a thread-pool thread.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="offset"/> is negative.</exception>
    /// <exception cref="ObjectDisposedException">The reader is disposed.</exception>
    /// <exception cref="OperationCanceledException">The token was cancelled before the read started or between blocks.</exception>
    /// <exception cref="IOException">A read failed; the message names the file, the offset and the OS error.</exception>
    public ValueTask<int> ReadAsync(long offset, Memory<byte> destination, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        return ReadCoreAsync(offset, destination, cancellationToken);
    }

    /// <summary>Stops the threads, frees the buffers, closes the file; waits for a read.</summary>
    public void Dispose()
    {
        _readGate.Wait();
        DisposeCore();
        GC.SuppressFinalize(this);
    }

    /// <summary>Disposes, awaiting a read in progress.</summary>
    public async ValueTask DisposeAsync()
    {
        await _readGate.WaitAsync().ConfigureAwait(false);
        DisposeCore();
        GC.SuppressFinalize(this);
    }

    /// <summary>Disposes with the read gate held, and releases it.</summary>
    private void DisposeCore()
    {
        try
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            _workers.Stop();
            _buffers.Dispose();
            _handle.Dispose();
        }
        finally
        {
            _readGate.Release();
        }
    }

    /// <summary>Lets an undisposed reader's threads end.</summary>
    ~DirectFileReader() => _workers.Stop();

    /// <summary>Runs a read's passes and counts it.</summary>
    private unsafe long ReadCore(long offset, byte* destination, long length, CancellationToken cancellationToken)
    {
        _readGate.Wait(cancellationToken);
        try
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            long started = Stopwatch.GetTimestamp();
            ReadJob? done = null;
            for (ReadJob? pass = FirstPass(offset, (nint)destination, length, cancellationToken); pass is not null; pass = NextPass(pass))
            {
                Run(pass);
                done = pass;
            }

            return Count(done, started);
        }
        finally
        {
            _readGate.Release();
        }
    }

    private async ValueTask<int> ReadCoreAsync(long offset, Memory<byte> destination, CancellationToken cancellationToken)
    {
        await _readGate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            long started = Stopwatch.GetTimestamp();
            using MemoryHandle pin = destination.Pin();
            ReadJob? done = null;
            for (ReadJob? pass = FirstPass(offset, AddressOf(pin), destination.Length, cancellationToken); pass is not null; pass = NextPass(pass))
            {
                await StartOnWorkers(pass).ConfigureAwait(false);
                done = pass;
            }

            return (int)Count(done, started);
        }
        finally
        {
            _readGate.Release();
        }
    }

    private static unsafe nint AddressOf(in MemoryHandle pin) => (nint)pin.Pointer;

    /// <summary>Counts a finished read; returns the last pass's bytes.</summary>
    private long Count(ReadJob? done, long started)
    {
        long read = done?.BytesRead ?? 0;
        bool direct = done?.Staged == true;
        lock (_statisticsLock)
        {
            _bytesRead += read;
            _directBytesRead += direct ? read : 0;
            _reads++;
            _elapsedTicks += Stopwatch.GetTimestamp() - started;
        }

        return read;
    }
}
