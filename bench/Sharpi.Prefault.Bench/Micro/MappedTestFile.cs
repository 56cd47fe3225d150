using System.IO.MemoryMappedFiles;

namespace Sharpi.Prefault.Bench;

/// <summary>A temporary file of non-zero bytes, mapped read-only, deleted on dispose: the fixture of the mapping benchmarks.</summary>
internal sealed class MappedTestFile : IDisposable
{
    private readonly MemoryMappedFile _map;
    private readonly MemoryMappedViewAccessor _view;

    internal MappedTestFile(long length)
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"sharpi-micro-{Environment.ProcessId}-{length}.bin");
        byte[] block = new byte[4 * 1024 * 1024];
        new Random(7).NextBytes(block);
        using (var stream = new FileStream(Path, FileMode.Create, FileAccess.Write, FileShare.None, 1))
        {
            for (long written = 0; written < length; written += block.Length)
            {
                stream.Write(block, 0, (int)Math.Min(block.Length, length - written));
            }
        }

        _map = MemoryMappedFile.CreateFromFile(Path, FileMode.Open, null, 0, MemoryMappedFileAccess.Read);
        _view = _map.CreateViewAccessor(0, length, MemoryMappedFileAccess.Read);
        Region = PrefaultRegion.FromView(_view, 0, length, "micro");
    }

    internal string Path { get; }

    internal PrefaultRegion Region { get; }

    public void Dispose()
    {
        _view.Dispose();
        _map.Dispose();
        File.Delete(Path);
    }
}
