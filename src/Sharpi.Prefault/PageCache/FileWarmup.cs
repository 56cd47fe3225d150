using System.Diagnostics;

namespace Sharpi.Prefault;

/// <summary>
/// One <see cref="PageCache.WarmAsync"/>, read in chunks by a few dedicated threads: blocking reads never occupy the
/// thread pool.
/// </summary>
internal sealed class FileWarmup
{
    internal const int ChunkBytes = 8 << 20;
    internal const int Threads = 4;
    private const int ReadBufferBytes = 1 << 20;

    private readonly string _path;
    private readonly SafeFileHandle _file;
    private readonly SafeFileHandle? _sink;
    private readonly long _length;
    private readonly IProgress<long>? _progress;
    private readonly CancellationToken _cancellationToken;
    private readonly long _started = Stopwatch.GetTimestamp();
    private readonly TaskCompletionSource<PageCacheWarmResult> _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private long _nextChunk;
    private long _bytesRead;
    private long _bytesAlreadyCached;
    private volatile bool _noCachestat;
    private int _running;
    private volatile bool _useRead;
    private volatile bool _canceled;
    private volatile bool _progressBroken;
    private string? _error;

    private FileWarmup(string path, SafeFileHandle file, IProgress<long>? progress, CancellationToken cancellationToken)
    {
        (_path, _file, _progress, _cancellationToken) = (path, file, progress, cancellationToken);
        _length = RandomAccess.GetLength(file);
        _sink = OperatingSystem.IsLinux() ? OpenDevNull() : null;
        _useRead = _sink is null;
    }

    internal static Task<PageCacheWarmResult> Start(string path, SafeFileHandle file, IProgress<long>? progress, CancellationToken cancellationToken)
    {
        var warmup = new FileWarmup(path, file, progress, cancellationToken);
        // One thread on a device that reads ahead a whole chunk itself: more streams slow the host's own read there.
        int most = ReadAheadWindow.ReadAheadOf(FileStatus.Of(file).Device) >= ChunkBytes ? 1 : Threads;
        int threads = (int)Math.Clamp((warmup._length + ChunkBytes - 1) / ChunkBytes, 1, most);
        warmup._running = threads;
        int started = 0;
        for (; started < threads; started++)
        {
            try
            {
                new Thread(warmup.Work) { IsBackground = true, Name = "sharpi-warm" }.Start();
            }
            catch (OutOfMemoryException)
            {
                // At the pids limit: the threads started read the whole file; with none, the result says why.
                break;
            }
        }

        if (started < threads)
        {
            if (started == 0)
            {
                warmup._error = "no thread could be started for the warm-up (the process, or its pids cgroup, is at its thread limit): nothing was read";
            }

            if (Interlocked.Add(ref warmup._running, started - threads) == 0)
            {
                warmup.Finish();
            }
        }

        return warmup._done.Task;
    }

    private void Work()
    {
        byte[]? buffer = null;
        try
        {
            while (_error is null)
            {
                if (_cancellationToken.IsCancellationRequested)
                {
                    _canceled = true;
                    break;
                }

                long offset = (Interlocked.Increment(ref _nextChunk) - 1) * ChunkBytes;
                if (offset >= _length)
                {
                    break;
                }

                int length = (int)Math.Min(ChunkBytes, _length - offset);
                if (OperatingSystem.IsLinux())
                {
                    if (IsCached(offset, length))
                    {
                        // Nothing to read: a warm file costs one cachestat per chunk, not a pass over its pages.
                        Interlocked.Add(ref _bytesAlreadyCached, length);
                        Report(Interlocked.Add(ref _bytesRead, length));
                        continue;
                    }

                    Interop.Libc.PosixFadvise(_file, offset, length, Interop.LinuxConstants.POSIX_FADV_WILLNEED);
                }

                long read = !_useRead && OperatingSystem.IsLinux() ? Send(offset, length) : -1;
                if (read < 0)
                {
                    read = Read(offset, length, buffer ??= new byte[ReadBufferBytes]);
                }

                long total = Interlocked.Add(ref _bytesRead, read);
                Report(total);
                if (read < length && _error is null)
                {
                    Interlocked.CompareExchange(ref _error, $"the file ended at byte {offset + read} while it was read; it had {_length} bytes when the warm-up began", null);
                }
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ObjectDisposedException)
        {
            Interlocked.CompareExchange(ref _error, $"{e.GetType().Name}: {e.Message}", null);
        }
        finally
        {
            if (Interlocked.Decrement(ref _running) == 0)
            {
                Finish();
            }
        }
    }

    /// <summary>Reports progress; a callback that throws is not called again, since an escaping exception ends the process.</summary>
    private void Report(long bytes)
    {
        if (_progress is null || _progressBroken)
        {
            return;
        }

        try
        {
            _progress.Report(bytes);
        }
#pragma warning disable CA1031 // The caller's callback may throw anything; none of it may end the process.
        catch (Exception)
#pragma warning restore CA1031
        {
            _progressBroken = true;
        }
    }

    /// <summary>Whether every page of the chunk is cached already (cachestat, Linux 6.5+; false where it is missing).</summary>
    [SupportedOSPlatform("linux")]
    private unsafe bool IsCached(long offset, int length)
    {
        if (_noCachestat)
        {
            return false;
        }

        Interop.Libc.CachestatRange range = new() { Offset = (ulong)offset, Length = (ulong)length };
        Interop.Libc.Cachestat stat = default;
        if (Interop.Libc.SyscallCachestat(Interop.Libc.SYS_cachestat, _file, &range, &stat, 0) != 0)
        {
            _noCachestat = true;
            return false;
        }

        long page = Environment.SystemPageSize;
        return (long)stat.Cached * page >= (length + page - 1) / page * page;
    }

    /// <summary>Bytes sent to /dev/null from <paramref name="offset"/>; -1 where sendfile is refused (then read instead).</summary>
    [SupportedOSPlatform("linux")]
    private unsafe long Send(long offset, int length)
    {
        long at = offset;
        long end = offset + length;
        while (at < end)
        {
            nint sent = Interop.Libc.Sendfile(_sink!, _file, &at, (nuint)(end - at));
            if (sent > 0)
            {
                continue; // sendfile advanced `at`
            }

            if (sent == 0)
            {
                break; // the end of the file
            }

            int errno = Marshal.GetLastPInvokeError();
            if (errno == Interop.LinuxConstants.EINTR)
            {
                continue;
            }

            if (errno is Interop.LinuxConstants.EINVAL or Interop.LinuxConstants.ENOSYS && at == offset)
            {
                _useRead = true;
                return -1;
            }

            throw new IOException($"sendfile of '{_path}' at byte {at} failed: {Errno.Describe(errno)}", errno);
        }

        return at - offset;
    }

    private long Read(long offset, int length, byte[] buffer)
    {
        long done = 0;
        while (done < length)
        {
            int n = RandomAccess.Read(_file, buffer.AsSpan(0, (int)Math.Min(buffer.Length, length - done)), offset + done);
            if (n == 0)
            {
                break;
            }

            done += n;
        }

        return done;
    }

    private void Finish()
    {
        _sink?.Dispose();
        _file.Dispose();
        _done.SetResult(new PageCacheWarmResult
        {
            Path = _path,
            FileLength = _length,
            BytesRead = Interlocked.Read(ref _bytesRead),
            BytesAlreadyCached = Interlocked.Read(ref _bytesAlreadyCached),
            Elapsed = Stopwatch.GetElapsedTime(_started),
            IsCanceled = _canceled && Interlocked.Read(ref _bytesRead) < _length,
            Method = _useRead ? "read" : "sendfile",
            Error = _error,
        });
    }

    private static SafeFileHandle? OpenDevNull()
    {
        try
        {
            return File.OpenHandle("/dev/null", FileMode.Open, FileAccess.Write);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }
}
