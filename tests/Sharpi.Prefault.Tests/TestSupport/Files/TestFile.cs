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

    /// <summary>
    /// Maps the whole file: read-only through the library (<see cref="MappedModel.OpenFile"/>), as an engine's weights
    /// are; <see cref="MemoryMappedFileAccess.ReadWrite"/> or <see cref="MemoryMappedFileAccess.CopyOnWrite"/>, which
    /// the library never maps, with a view (<see cref="MapView"/>).
    /// </summary>
    public MappedFile Map(MemoryMappedFileAccess access = MemoryMappedFileAccess.Read) =>
        access == MemoryMappedFileAccess.Read ? MappedFile.ReadOnly(Path) : MapView(access);

    /// <summary>Maps the whole file with a view, for the calls that take one (<see cref="PrefaultRegion.FromView(MemoryMappedViewAccessor, string?)"/>) and for writes.</summary>
    public MappedFile MapView(MemoryMappedFileAccess access = MemoryMappedFileAccess.Read) => MappedFile.WithView(Path, Length, access);

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

/// <summary>
/// A file mapped for a test and the regions over it. Read-only it is mapped through the library
/// (<see cref="MappedModel.OpenFile"/>), which hands out no view and maps nothing writable; a writable mapping, or one
/// whose <see cref="View"/> a test passes to the library, is made here with MemoryMappedFile: the one place the tests
/// map a file that way (the truncation races hold their own stream to shrink the file under the view).
/// </summary>
public sealed class MappedFile : IDisposable
{
    private readonly MappedModel? _model;
    private readonly MemoryMappedFile? _map;
    private readonly MemoryMappedViewAccessor? _view;
    private readonly PrefaultRegion _whole;

    private MappedFile(MappedModel model)
    {
        _model = model;
        _whole = model.FileRegion(model.Path);
        Length = model.Length;
    }

    private MappedFile(MemoryMappedFile map, MemoryMappedViewAccessor view, long length)
    {
        _map = map;
        _view = view;
        _whole = PrefaultRegion.FromView(view);
        Length = length;
    }

    /// <summary>The view, where the file was mapped with one (<see cref="WithView"/>).</summary>
    public MemoryMappedViewAccessor View =>
        _view ?? throw new InvalidOperationException("This file was mapped through MappedModel, which hands out no view; map it with TestFile.MapView or MappedFile.WithView.");

    public long Length { get; }

    /// <summary>Maps the whole file read-only through the library, as an engine's weights are.</summary>
    public static MappedFile ReadOnly(string path) => new(MappedModel.OpenFile(path));

    /// <summary>Maps the first <paramref name="length"/> bytes with <paramref name="access"/> and keeps the view.</summary>
    public static MappedFile WithView(string path, long length, MemoryMappedFileAccess access = MemoryMappedFileAccess.Read)
    {
        var stream = new FileStream(path, FileMode.Open,
            access == MemoryMappedFileAccess.ReadWrite ? FileAccess.ReadWrite : FileAccess.Read,
            FileShare.ReadWrite | FileShare.Delete, 1, FileOptions.None);
        MemoryMappedFile map = MemoryMappedFile.CreateFromFile(stream, null, 0, access, HandleInheritability.None, leaveOpen: false);
        return new MappedFile(map, map.CreateViewAccessor(0, length, access), length);
    }

    public PrefaultRegion Region(string? name = null) => _whole with { Name = name };

    public PrefaultRegion Region(long offset, long length, string? name = null)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(length, Length - offset);
        return new PrefaultRegion(_whole.Address + (nint)offset, length, name);
    }

    public double ResidentPercent() => Residency.Measure(Region()).Percent;

    public void Dispose()
    {
        _model?.Dispose();
        _view?.Dispose();
        _map?.Dispose();
    }
}
