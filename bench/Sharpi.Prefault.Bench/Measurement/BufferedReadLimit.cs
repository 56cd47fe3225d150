using System.Diagnostics;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The page cache's own read limit: large buffered reads (read-ahead and its large folios do the I/O) into reused,
/// pre-faulted buffers, one contiguous slice of the file per thread, each thread with its own handle so each
/// slice keeps its own read-ahead state. Run after eviction, it is what mmap rows can reach at best through the
/// page cache, without the faults.
/// </summary>
internal static unsafe class BufferedReadLimit
{
    internal static (double Seconds, string Method) Measure(string path, long length, int threads, int blockSize)
    {
        using var buffers = new ReadBuffers(threads, blockSize, hugePages: true);
        var handles = new SafeFileHandle[threads];
        try
        {
            for (int i = 0; i < threads; i++)
            {
                handles[i] = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.Read | FileShare.Delete, FileOptions.SequentialScan);
            }

            long slice = (length / threads + blockSize - 1) / blockSize * blockSize;
            var failures = new IOException?[threads];
            long started = Stopwatch.GetTimestamp();
            WorkerThreads.Run(threads, "buffered read limit",
                t => failures[t] = ReadSlice(handles[t], buffers[t], blockSize, t * slice, Math.Min(length, (t + 1) * slice)));
            double seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
            if (Array.Find(failures, static f => f is not null) is { } failure)
            {
                throw new BenchException($"The buffered read limit failed: {failure.Message}", failure);
            }

            return (seconds, $"read(), {threads} threads x {Sizes.Format(blockSize)}, a slice each, {buffers.Pages}");
        }
        finally
        {
            foreach (SafeFileHandle? handle in handles)
            {
                handle?.Dispose();
            }
        }
    }

    private static IOException? ReadSlice(SafeFileHandle handle, nint buffer, int blockSize, long from, long to)
    {
        try
        {
            var span = new Span<byte>((void*)buffer, blockSize);
            for (long offset = from; offset < to;)
            {
                int read = RandomAccess.Read(handle, span[..(int)Math.Min(blockSize, to - offset)], offset);
                if (read == 0)
                {
                    return new IOException($"the file ended at {offset} bytes; was it truncated?");
                }

                offset += read;
            }

            return null;
        }
        catch (IOException e)
        {
            return e;
        }
    }
}
