using System.Diagnostics;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The device's sequential read limit by O_DIRECT: <c>readsInFlight</c> threads each read whole blocks, taking the
/// next block from one counter, into their own reused, pre-faulted <see cref="ReadBuffers"/>, so neither the page
/// cache nor page faults are in the way. Deliberately independent of the library (its own open and
/// <see cref="RandomAccess"/>), so the library is measured against the disk, not itself.
/// </summary>
internal static unsafe class SequentialReadLimit
{
    /// <summary>Reads the whole file; returns the seconds and how it read (Direct, or buffered where O_DIRECT is refused).</summary>
    internal static (double Seconds, string Method) Measure(string path, long length, int readsInFlight, int blockSize, bool hugePages)
    {
        SafeFileHandle handle = OpenDirect(path, out string method);
        using (handle)
        {
            using var buffers = new ReadBuffers(readsInFlight, blockSize, hugePages);
            var work = new Work(handle, length, blockSize);
            long started = Stopwatch.GetTimestamp();
            WorkerThreads.Run(readsInFlight, "read limit", i => work.Read(buffers[i]));
            double seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
            work.ThrowIfFailed();
            return (seconds, $"{method}, {readsInFlight} x {Sizes.Format(blockSize)} in flight, {buffers.Pages}");
        }
    }

    private static SafeFileHandle OpenDirect(string path, out string method)
    {
        if (OperatingSystem.IsLinux() && Interop.LinuxConstants.O_DIRECT != 0)
        {
            SafeFileHandle direct = Interop.Libc.Open(path, Interop.LinuxConstants.O_RDONLY | Interop.LinuxConstants.O_CLOEXEC | Interop.LinuxConstants.O_DIRECT, 0);
            if (!direct.IsInvalid)
            {
                method = "O_DIRECT";
                return direct;
            }

            int errno = Marshal.GetLastPInvokeError();
            direct.Dispose();
            method = $"buffered (O_DIRECT refused: {Marshal.GetPInvokeErrorMessage(errno)})";
        }
        else
        {
            method = "buffered (no O_DIRECT on this OS or architecture)";
        }

        return File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.Read, FileOptions.SequentialScan);
    }

    private sealed class Work(SafeFileHandle handle, long length, int blockSize)
    {
        private long _nextBlock = -1;
        private Exception? _failure;

        internal void Read(nint buffer)
        {
            try
            {
                long blocks = (length + blockSize - 1) / blockSize;
                var span = new Span<byte>((void*)buffer, blockSize);
                for (long block = Interlocked.Increment(ref _nextBlock); block < blocks; block = Interlocked.Increment(ref _nextBlock))
                {
                    long offset = block * blockSize;
                    int want = (int)Math.Min(blockSize, length - offset);
                    int done = 0;
                    while (done < want)
                    {
                        // A whole aligned block is asked for even at the end: O_DIRECT needs aligned lengths, and the read stops at EOF.
                        int read = RandomAccess.Read(handle, span[done..], offset + done);
                        if (read == 0)
                        {
                            break;
                        }

                        done += read;
                    }
                }
            }
            catch (IOException e)
            {
                Interlocked.CompareExchange(ref _failure, e, null);
            }
        }

        internal void ThrowIfFailed()
        {
            if (_failure is not null)
            {
                throw new BenchException($"The read-limit measurement failed: {_failure.Message}", _failure);
            }
        }
    }
}
