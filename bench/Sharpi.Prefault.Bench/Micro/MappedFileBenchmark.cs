using BenchmarkDotNet.Attributes;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The base of the benchmarks over a mapped temporary file of non-zero bytes: writes it, maps it read-only through the
/// library (<see cref="MappedModel.OpenFile"/>), and unmaps and deletes it at the global cleanup.
/// </summary>
public abstract class MappedFileBenchmark : IDisposable
{
    private string? _path;
    private MappedModel? _mapped;

    /// <summary>The whole mapped file.</summary>
    internal PrefaultRegion Region { get; private set; }

    [GlobalCleanup]
    public void Cleanup() => Dispose();

    public void Dispose()
    {
        Dispose(disposing: true);
        GC.SuppressFinalize(this);
    }

    protected void CreateFile(long length)
    {
        _path = Path.Combine(Path.GetTempPath(), $"sharpi-micro-{Environment.ProcessId}-{length}.bin");
        byte[] block = new byte[4 * 1024 * 1024];
        new Random(7).NextBytes(block);
        using (var stream = new FileStream(_path, FileMode.Create, FileAccess.Write, FileShare.None, 1))
        {
            for (long written = 0; written < length; written += block.Length)
            {
                stream.Write(block, 0, (int)Math.Min(block.Length, length - written));
            }
        }

        _mapped = MappedModel.OpenFile(_path);
        Region = _mapped.FileRegion(_path) with { Name = "micro" };
    }

    protected virtual void Dispose(bool disposing)
    {
        if (disposing)
        {
            _mapped?.Dispose();
            _mapped = null;
            if (_path is not null)
            {
                File.Delete(_path);
                _path = null;
            }
        }
    }
}
