using System.Buffers;
using System.Diagnostics;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

/// <summary>
/// Reads byte ranges of a file past the page cache (O_DIRECT on Linux, FILE_FLAG_NO_BUFFERING on Windows) into the
/// caller's memory: for engines that copy weights into their own buffers, at disk speed and without filling the page
/// cache. Any range may be asked for; the reader reads aligned blocks that cover it into its own aligned buffers
/// (several in flight) and copies out the bytes asked for.
/// </summary>
/// <remarks>
/// Where Direct I/O is refused (at open, or by the first read) the reader falls back to buffered reads of the same
/// file, logs why once, and shows it in <see cref="Mode"/>, <see cref="FallbackReason"/> and <see cref="Statistics"/>.
/// Reads on one reader run one at a time; a second caller waits. Dispose frees the buffers and closes the file.
/// </remarks>
public sealed unsafe class DirectFileReader : IDisposable
{
    private readonly object _gate = new();
    private readonly ILogger _logger;
    private readonly int _offsetAlignment;
    private readonly int _memoryAlignment;
    private readonly int _bufferAlignment;
    private readonly int _blockSize;
    private readonly int _readsInFlight;
    private readonly nint[] _buffers;
    private SafeFileHandle _handle;
    private volatile DirectReadMode _mode;
    private volatile string? _fallbackReason;
    private int _simulatedErrno;
    private bool _disposed;

    private long _bytesRead;
    private long _directBytesRead;
    private long _reads;
    private long _elapsedTicks;
    private long _bytesInFlight;
    private long _peakBytesInFlight;

    private DirectFileReader(string path, OpenedFile file, DirectReadOptions options, ILogger logger)
    {
        Path = path;
        _handle = file.Handle;
        _mode = file.Mode;
        _fallbackReason = file.FallbackReason;
        _logger = logger;
        _offsetAlignment = file.OffsetAlignment;
        _memoryAlignment = Math.Max(file.MemoryAlignment, 1);
        _bufferAlignment = Math.Max(Math.Max(file.MemoryAlignment, file.OffsetAlignment), Environment.SystemPageSize);
        _simulatedErrno = options.SimulatedFirstReadErrno;

        // Fit the cap: reads * block <= MaxInFlightBytes, the block a multiple of the alignment.
        int alignment = Math.Max(file.OffsetAlignment, 1);
        long block = Math.Min(options.BlockSize, options.MaxInFlightBytes) / alignment * alignment;
        _blockSize = (int)Math.Max(block, alignment);
        _readsInFlight = (int)Math.Clamp(options.MaxInFlightBytes / _blockSize, 1, options.MaxReadsInFlight);
        _buffers = new nint[_readsInFlight];
    }

    /// <summary>The file's path as given to <see cref="Open"/>.</summary>
    public string Path { get; }

    /// <summary><see cref="DirectReadMode.Direct"/> until Direct I/O is refused; then, for good, <see cref="DirectReadMode.Buffered"/>.</summary>
    public DirectReadMode Mode => _mode;

    /// <summary>Why the reader reads buffered (at open or after a refused read), or null while it reads Direct.</summary>
    public string? FallbackReason => _fallbackReason;

    /// <summary>The file's length now, in bytes.</summary>
    /// <exception cref="ObjectDisposedException">The reader is disposed.</exception>
    public long Length
    {
        get
        {
            lock (_gate)
            {
                ObjectDisposedException.ThrowIf(_disposed, this);
                return RandomAccess.GetLength(_handle);
            }
        }
    }

    /// <summary>A snapshot of the mode, the buffer sizes and the bytes and time read so far.</summary>
    public DirectReadStatistics Statistics
    {
        get
        {
            lock (_gate)
            {
                long bufferBytes = 0;
                foreach (nint buffer in _buffers)
                {
                    bufferBytes += buffer != 0 ? _blockSize : 0;
                }

                bool direct = _mode == DirectReadMode.Direct;
                return new DirectReadStatistics
                {
                    Mode = _mode,
                    FallbackReason = _fallbackReason,
                    Alignment = direct ? _offsetAlignment : 1,
                    BlockSize = _blockSize,
                    ReadsInFlight = _readsInFlight,
                    BufferBytes = bufferBytes,
                    PeakInFlightBytes = Interlocked.Read(ref _peakBytesInFlight),
                    BytesRead = _bytesRead,
                    DirectBytesRead = _directBytesRead,
                    Reads = _reads,
                    Elapsed = Stopwatch.GetElapsedTime(0, _elapsedTicks),
                };
            }
        }
    }

    /// <summary>
    /// Opens <paramref name="path"/> for reading: Direct where the OS and filesystem allow it, buffered (with the reason
    /// logged and in <see cref="FallbackReason"/>) where not. Allocates no buffer yet.
    /// </summary>
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
        OpenedFile file = DirectFileOpener.Open(path, options.UseDirectIO);
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

    /// <summary>
    /// Reads the bytes at <paramref name="offset"/> into <paramref name="destination"/>. Returns the bytes read: the
    /// destination's length, or fewer where the file ends first (0 at or past the end). Bytes past the count returned
    /// are left as they were.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="offset"/> is negative.</exception>
    /// <exception cref="ObjectDisposedException">The reader is disposed.</exception>
    /// <exception cref="OperationCanceledException">The token was cancelled between blocks.</exception>
    /// <exception cref="IOException">A read failed; the message names the file, the offset and the OS error.</exception>
    public int Read(long offset, Span<byte> destination, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        fixed (byte* target = destination)
        {
            return (int)ReadCore(offset, target, destination.Length, cancellationToken);
        }
    }

    /// <summary>
    /// Reads <paramref name="length"/> bytes at <paramref name="offset"/> into native memory at
    /// <paramref name="destination"/> (for destinations past 2 GiB: pinned arrays, NativeMemory, mapped or GPU-staging
    /// memory). Returns the bytes read, fewer than <paramref name="length"/> only where the file ends first.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="offset"/> or <paramref name="length"/> is negative.</exception>
    /// <exception cref="ArgumentNullException"><paramref name="destination"/> is zero and <paramref name="length"/> is not.</exception>
    /// <exception cref="ObjectDisposedException">The reader is disposed.</exception>
    /// <exception cref="OperationCanceledException">The token was cancelled between blocks.</exception>
    /// <exception cref="IOException">A read failed; the message names the file, the offset and the OS error.</exception>
    public long Read(long offset, nint destination, long length, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        if (destination == 0 && length > 0)
        {
            ThrowHelper.ThrowNullDestination(nameof(destination));
        }

        return ReadCore(offset, (byte*)destination, length, cancellationToken);
    }

    /// <summary><see cref="Read(long, Span{byte}, CancellationToken)"/> on a thread-pool thread.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="offset"/> is negative.</exception>
    public Task<int> ReadAsync(long offset, Memory<byte> destination, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        return Task.Run(() =>
        {
            using MemoryHandle pin = destination.Pin();
            return (int)ReadCore(offset, (byte*)pin.Pointer, destination.Length, cancellationToken);
        }, cancellationToken);
    }

    /// <summary>Frees the buffers and closes the file. Waits for a read in progress.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            FreeBuffers();
            _handle.Dispose();
            GC.SuppressFinalize(this);
        }
    }

    /// <summary>A reader that was never disposed still returns its staging buffers (the file handle has its own finalizer).</summary>
    ~DirectFileReader() => FreeBuffers();

    private void FreeBuffers()
    {
        for (int i = 0; i < _buffers.Length; i++)
        {
            if (_buffers[i] != 0)
            {
                NativeMemory.AlignedFree((void*)_buffers[i]);
                _buffers[i] = 0;
            }
        }
    }

    private long ReadCore(long offset, byte* destination, long length, CancellationToken cancellationToken)
    {
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            long started = Stopwatch.GetTimestamp();
            long fileLength = RandomAccess.GetLength(_handle);
            long read = 0;
            bool direct = false;
            if (length > 0 && offset < fileLength)
            {
                long end = offset + Math.Min(length, fileLength - offset);
                direct = _mode == DirectReadMode.Direct;
                if (!(direct && TryReadRange(offset, end, destination, staged: true, cancellationToken, out read)))
                {
                    direct = false;
                    TryReadRange(offset, end, destination, staged: false, cancellationToken, out read);
                }
            }

            _bytesRead += read;
            _directBytesRead += direct ? read : 0;
            _reads++;
            _elapsedTicks += Stopwatch.GetTimestamp() - started;
            return read;
        }
    }

    /// <summary>
    /// Reads [offset, end) in blocks, up to <see cref="_readsInFlight"/> at once (the calling thread is one of the
    /// workers). Staged: aligned blocks that cover the range, through the aligned buffers. Not staged: straight into the
    /// destination. False when Direct I/O was refused; the reader is then buffered and the caller reads again.
    /// </summary>
    private bool TryReadRange(long offset, long end, byte* destination, bool staged, CancellationToken cancellationToken, out long read)
    {
        long mask = staged ? _offsetAlignment - 1 : 0;
        long start = offset & ~mask;
        long readEnd = (end + mask) & ~mask;
        var job = new ReadJob
        {
            Offset = offset,
            End = end,
            Start = start,
            ReadEnd = readEnd,
            BlockCount = (readEnd - start + _blockSize - 1) / _blockSize,
            Destination = (nint)destination,
            Staged = staged,
            Token = cancellationToken,
        };

        int workers = (int)Math.Min(_readsInFlight, job.BlockCount);

        Task[]? others = workers > 1 ? new Task[workers - 1] : null;
        for (int w = 1; w < workers; w++)
        {
            int worker = w;
            others![w - 1] = Task.Run(() => Work(worker, job), CancellationToken.None);
        }

        Work(0, job);
        if (others is not null)
        {
            Task.WaitAll(others, CancellationToken.None);
        }

        job.Failure?.Throw();
        if (job.Cancelled)
        {
            cancellationToken.ThrowIfCancellationRequested();
        }

        if (job.Errno != 0)
        {
            if (staged && IsRefusal(job.Errno))
            {
                FallBack(job.Errno, job.ErrorOffset);
                read = 0;
                return false;
            }

            ThrowHelper.ThrowReadFailed(Path, job.ErrorOffset, Math.Min(_blockSize, job.ReadEnd - job.ErrorOffset), job.Errno);
        }

        read = Math.Max(0, Math.Min(end, Interlocked.Read(ref job.ShortEnd)) - offset);
        return true;
    }

    /// <summary>One worker: takes the next block until none is left, reads it, and copies out the requested part.</summary>
    private void Work(int worker, ReadJob job)
    {
        try
        {
            byte* staging = null;
            while (!job.Stop)
            {
                long block = Interlocked.Increment(ref job.NextBlock);
                if (block >= job.BlockCount)
                {
                    return;
                }

                if (job.Token.IsCancellationRequested)
                {
                    job.Cancelled = true;
                    job.Stop = true;
                    return;
                }

                long blockStart = job.Start + (block * _blockSize);
                int want = (int)Math.Min(_blockSize, job.ReadEnd - blockStart);
                byte* direct = (byte*)job.Destination + (blockStart - job.Offset);

                // A block wholly inside the range whose place in the destination is aligned for Direct I/O is read
                // straight there: no staging, no copy (the usual case for page-aligned engine buffers).
                bool copy = job.Staged
                    && (blockStart < job.Offset || blockStart + want > job.End || ((nint)direct & (_memoryAlignment - 1)) != 0);
                int got;
                int errno;
                if (copy)
                {
                    staging = staging != null ? staging : Buffer(worker);
                    NoteInFlight(want);
                    got = Fill(staging, want, blockStart, staged: true, out errno);
                    Interlocked.Add(ref _bytesInFlight, -want);
                }
                else
                {
                    got = Fill(direct, want, blockStart, job.Staged, out errno);
                }

                if (errno != 0)
                {
                    job.Fail(errno, blockStart);
                    return;
                }

                if (copy)
                {
                    long copyStart = Math.Max(blockStart, job.Offset);
                    long copyEnd = Math.Min(blockStart + got, job.End);
                    if (copyEnd > copyStart)
                    {
                        System.Buffer.MemoryCopy(staging + (copyStart - blockStart), (byte*)job.Destination + (copyStart - job.Offset),
                            copyEnd - copyStart, copyEnd - copyStart);
                    }
                }

                if (got < want)
                {
                    job.NoteShortEnd(blockStart + got);
                }
            }
        }
        catch (Exception e)
        {
            Interlocked.CompareExchange(ref job.Failure, ExceptionDispatchInfo.Capture(e), null);
            job.Stop = true;
        }
    }

    /// <summary>
    /// Reads up to <paramref name="want"/> bytes at <paramref name="fileOffset"/>, retrying short reads. Returns the
    /// bytes read (fewer at the end of the file) and the OS error, 0 when none.
    /// </summary>
    private int Fill(byte* target, int want, long fileOffset, bool staged, out int errno)
    {
        errno = 0;
        if (staged && _simulatedErrno != 0)
        {
            errno = Interlocked.Exchange(ref _simulatedErrno, 0);
            if (errno != 0)
            {
                return 0;
            }
        }

        int done = 0;
        while (done < want)
        {
            int n;
            if (OperatingSystem.IsLinux())
            {
                nint result = Interop.Libc.Pread((int)_handle.DangerousGetHandle(), target + done, (nuint)(want - done), fileOffset + done);
                if (result < 0)
                {
                    int error = Marshal.GetLastPInvokeError();
                    if (error == Interop.LinuxConstants.EINTR)
                    {
                        continue;
                    }

                    errno = error;
                    return done;
                }

                n = (int)result;
            }
            else if (staged && OperatingSystem.IsWindows())
            {
                try
                {
                    n = RandomAccess.Read(_handle, new Span<byte>(target + done, want - done), fileOffset + done);
                }
                catch (IOException e) when ((e.HResult & 0xFFFF) == Interop.Kernel32.ERROR_INVALID_PARAMETER)
                {
                    errno = Interop.Kernel32.ERROR_INVALID_PARAMETER;
                    return done;
                }
            }
            else
            {
                n = RandomAccess.Read(_handle, new Span<byte>(target + done, want - done), fileOffset + done);
            }

            if (n == 0)
            {
                break;
            }

            done += n;

            // A Direct read that stops off the alignment stopped at the end of the file; another would be misaligned.
            if (staged && (done & (_offsetAlignment - 1)) != 0)
            {
                break;
            }
        }

        return done;
    }

    private static bool IsRefusal(int errno) =>
        OperatingSystem.IsWindows() ? errno == Interop.Kernel32.ERROR_INVALID_PARAMETER : errno == Interop.LinuxConstants.EINVAL;

    /// <summary>Direct I/O was refused by a read (CoW or FUSE filesystems): reopen buffered, for good, and say so once.</summary>
    private void FallBack(int errno, long fileOffset)
    {
        string error = OperatingSystem.IsWindows()
            ? $"error {errno} ({Marshal.GetPInvokeErrorMessage(errno)})"
            : Errno.Describe(errno);
        string reason = _directBytesRead == 0
            ? $"the filesystem refused the first Direct I/O read (at offset {fileOffset}: {error})"
            : $"the filesystem refused a Direct I/O read at offset {fileOffset} ({error})";
        OpenedFile buffered = DirectFileOpener.OpenBuffered(Path, reason);
        _handle.Dispose();
        _handle = buffered.Handle;
        _fallbackReason = reason;
        _mode = DirectReadMode.Buffered;
        Log.DirectIOFallback(_logger, Path, reason);
    }

    /// <summary>The worker's staging buffer, allocated on its first use and kept until dispose. Each worker owns its slot.</summary>
    private byte* Buffer(int worker)
    {
        if (_buffers[worker] == 0)
        {
            _buffers[worker] = (nint)NativeMemory.AlignedAlloc((nuint)_blockSize, (nuint)_bufferAlignment);
        }

        return (byte*)_buffers[worker];
    }

    private void NoteInFlight(int bytes)
    {
        long now = Interlocked.Add(ref _bytesInFlight, bytes);
        long peak = Interlocked.Read(ref _peakBytesInFlight);
        while (now > peak)
        {
            long seen = Interlocked.CompareExchange(ref _peakBytesInFlight, now, peak);
            if (seen == peak)
            {
                break;
            }

            peak = seen;
        }
    }

    /// <summary>The shared state of one read's workers.</summary>
    private sealed class ReadJob
    {
        internal long NextBlock = -1;
        internal long ShortEnd = long.MaxValue;
        internal int Errno;
        internal long ErrorOffset;
        internal volatile bool Stop;
        internal volatile bool Cancelled;
        internal ExceptionDispatchInfo? Failure;

        internal required long Offset { get; init; }

        internal required long End { get; init; }

        internal required long Start { get; init; }

        internal required long ReadEnd { get; init; }

        internal required long BlockCount { get; init; }

        internal required nint Destination { get; init; }

        internal required bool Staged { get; init; }

        internal required CancellationToken Token { get; init; }

        internal void Fail(int errno, long fileOffset)
        {
            if (Interlocked.CompareExchange(ref Errno, errno, 0) == 0)
            {
                ErrorOffset = fileOffset;
            }

            Stop = true;
        }

        internal void NoteShortEnd(long fileOffset)
        {
            long seen = Interlocked.Read(ref ShortEnd);
            while (fileOffset < seen)
            {
                long previous = Interlocked.CompareExchange(ref ShortEnd, fileOffset, seen);
                if (previous == seen)
                {
                    break;
                }

                seen = previous;
            }
        }
    }
}
