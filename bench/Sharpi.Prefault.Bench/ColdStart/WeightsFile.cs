using System.Diagnostics;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault.Bench;

/// <summary>The file the benchmark maps: a real model given with <c>--file</c> (never changed), or a default one of random bytes.</summary>
internal sealed record WeightsFile(string Path, long Length, bool Generated)
{
    private const int WriteBlock = 8 * 1024 * 1024;
    private const long FreeSpaceMargin = 256L * 1024 * 1024;

    /// <summary>
    /// A file a cold row evicts with this one: the image under a scratch device's filesystem (<see cref="ScratchDevice"/>),
    /// whose own page cache would otherwise serve a "cold" read where its loop device fell back to buffered I/O.
    /// </summary>
    internal string? AlsoEvict { get; init; }

    internal static string DefaultDirectory => System.IO.Path.Combine(System.IO.Path.GetTempPath(), "sharpi-prefault-bench");

    /// <summary>The caller's file, as it is.</summary>
    internal static WeightsFile Existing(string path)
    {
        var info = new FileInfo(path);
        if (!info.Exists)
        {
            throw new BenchException($"--file '{path}' does not exist.");
        }

        if (info.Length == 0)
        {
            throw new BenchException($"--file '{path}' is empty; give a weights file (for example a GGUF model).");
        }

        return new WeightsFile(info.FullName, info.Length, Generated: false);
    }

    /// <summary>The default file of <paramref name="size"/> random (incompressible) bytes in <paramref name="directory"/>: reused when its size matches, written otherwise.</summary>
    internal static WeightsFile OpenOrCreate(string directory, long size, ProgressLine progress)
    {
        Directory.CreateDirectory(directory);
        string path = System.IO.Path.GetFullPath(System.IO.Path.Combine(directory, $"sharpi-bench-weights-{ByteSize.Compact(size)}.bin"));
        var info = new FileInfo(path);
        if (info.Exists && info.Length == size)
        {
            progress.Note($"Reusing {path} ({Sizes.Format(size)}).");
            return new WeightsFile(path, size, Generated: true);
        }

        EnsureFreeSpace(directory, size, info.Exists ? info.Length : 0);
        Write(path, size, progress);
        return new WeightsFile(path, size, Generated: true);
    }

    /// <summary>Fails before a write of <paramref name="size"/> bytes (replacing <paramref name="replaced"/>) that would fill the disk of <paramref name="directory"/>.</summary>
    internal static void EnsureFreeSpace(string directory, long size, long replaced)
    {
        long needed = size - replaced + FreeSpaceMargin;
        var drive = new DriveInfo(System.IO.Path.GetFullPath(directory));
        if (drive.AvailableFreeSpace < needed)
        {
            throw new BenchException(
                $"Not enough disk space for the {Sizes.Format(size)} weights file in '{directory}': {Sizes.Format(drive.AvailableFreeSpace)} free on {drive.Name}, " +
                $"{Sizes.Format(needed)} needed (with a {Sizes.Format(FreeSpaceMargin)} margin). Use --dir on a larger disk or a smaller --size.");
        }
    }

    /// <summary>
    /// Reads the file front to back on the calling thread through the page cache, <paramref name="readSize"/> bytes a
    /// read: into <paramref name="into"/> at the file's offsets, or without it into one reused buffer.
    /// </summary>
    internal unsafe void ReadWhole(int readSize, nint into = 0)
    {
        byte[]? reused = into == 0 ? new byte[readSize] : null;
        using SafeFileHandle handle = File.OpenHandle(Path, FileMode.Open, FileAccess.Read, FileShare.Read, FileOptions.SequentialScan);
        for (long offset = 0; offset < Length;)
        {
            int size = (int)Math.Min(readSize, Length - offset);
            int read = RandomAccess.Read(handle, reused is null ? new Span<byte>((byte*)into + offset, size) : reused.AsSpan(0, size), offset);
            if (read == 0)
            {
                throw new BenchException($"'{Path}' ended at {offset} bytes while it was being read; was it truncated?");
            }

            offset += read;
        }
    }

    /// <summary>Writes to a temporary name and renames, so a run that is stopped never leaves a file that looks complete.</summary>
    private static void Write(string path, long size, ProgressLine progress)
    {
        string partial = path + ".partial";
        long started = Stopwatch.GetTimestamp();
        var random = new Random(20_26);
        byte[] block = new byte[WriteBlock];
        using (var stream = new FileStream(partial, FileMode.Create, FileAccess.Write, FileShare.None, 1, FileOptions.SequentialScan))
        {
            for (long written = 0; written < size;)
            {
                int n = (int)Math.Min(block.Length, size - written);
                random.NextBytes(block.AsSpan(0, n));
                stream.Write(block, 0, n);
                written += n;
                progress.Update($"writing {Sizes.Format(size)} of random bytes to {path}: {100.0 * written / size:0}%");
            }

            stream.Flush(flushToDisk: true);
        }

        File.Move(partial, path, overwrite: true);
        progress.Note($"Wrote {path} ({Sizes.Format(size)}) in {Stopwatch.GetElapsedTime(started).TotalSeconds:0.0} s.");
    }
}
