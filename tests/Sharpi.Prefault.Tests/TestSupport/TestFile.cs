using System.IO.MemoryMappedFiles;
using System.Security.Cryptography;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A temporary file of real, incompressible bytes, written by the test and deleted on dispose.
/// Lives on the real disk (the system temp folder), not tmpfs, unless a directory is given.
/// </summary>
public sealed class TestFile : IDisposable
{
    public const long MiB = 1L << 20;

    private TestFile(string path, long length)
    {
        Path = path;
        Length = length;
    }

    public string Path { get; }

    public long Length { get; }

    /// <summary>Writes <paramref name="length"/> random bytes (fsync'd) and evicts them from the page cache on Linux.</summary>
    public static TestFile Create(long length, string? directory = null, bool evict = true)
    {
        string dir = directory ?? System.IO.Path.GetTempPath();
        string path = System.IO.Path.Combine(dir, $"sharpi-prefault-test-{Guid.NewGuid():N}.bin");
        using (var stream = new FileStream(path, FileMode.CreateNew, FileAccess.Write, FileShare.None, 1, FileOptions.None))
        {
            byte[] buffer = new byte[(int)Math.Min(length, 8 * MiB)];
            RandomNumberGenerator.Fill(buffer);
            long left = length;
            int round = 0;
            while (left > 0)
            {
                int n = (int)Math.Min(left, buffer.Length);
                // Vary each block cheaply so no two blocks are equal (a filesystem could dedupe or compress them).
                BitConverter.TryWriteBytes(buffer.AsSpan(0, 8), round++);
                stream.Write(buffer, 0, n);
                left -= n;
            }

            stream.Flush(flushToDisk: true);
        }

        var file = new TestFile(path, length);
        if (evict && OperatingSystem.IsLinux())
        {
            file.Evict();
        }

        return file;
    }

    /// <summary>A file of <paramref name="length"/> bytes that are all a hole: no disk written, pages of zeros when read.</summary>
    public static TestFile CreateSparse(long length, string? directory = null)
    {
        string path = System.IO.Path.Combine(directory ?? System.IO.Path.GetTempPath(), $"sharpi-prefault-test-{Guid.NewGuid():N}.bin");
        using (var stream = new FileStream(path, FileMode.CreateNew, FileAccess.Write))
        {
            stream.SetLength(length);
        }

        return new TestFile(path, length);
    }

    public void Evict()
    {
        if (OperatingSystem.IsLinux())
        {
            PageCache.Evict(Path);
        }
    }

    /// <summary>Maps the whole file read-only.</summary>
    public MappedFile Map(MemoryMappedFileAccess access = MemoryMappedFileAccess.Read) => new(Path, Length, access);

    public void Dispose()
    {
        try
        {
            File.Delete(Path);
        }
        catch (IOException)
        {
            // Best effort: a test that failed may still hold the file open on Windows.
        }
    }
}

/// <summary>A file mapped for a test: the map, a view over all of it, and a region over the view.</summary>
public sealed class MappedFile : IDisposable
{
    public MappedFile(string path, long length, MemoryMappedFileAccess access = MemoryMappedFileAccess.Read)
    {
        var stream = new FileStream(path, FileMode.Open,
            access == MemoryMappedFileAccess.ReadWrite ? FileAccess.ReadWrite : FileAccess.Read,
            FileShare.ReadWrite | FileShare.Delete, 1, FileOptions.None);
        Map = MemoryMappedFile.CreateFromFile(stream, null, 0, access, HandleInheritability.None, leaveOpen: false);
        View = Map.CreateViewAccessor(0, length, access);
        Length = length;
    }

    public MemoryMappedFile Map { get; }

    public MemoryMappedViewAccessor View { get; }

    public long Length { get; }

    public PrefaultRegion Region(string? name = null) => PrefaultRegion.FromView(View, name);

    public PrefaultRegion Region(long offset, long length, string? name = null) => PrefaultRegion.FromView(View, offset, length, name);

    public double ResidentPercent() => Residency.Measure(Region()).Percent;

    public void Dispose()
    {
        View.Dispose();
        Map.Dispose();
    }
}
