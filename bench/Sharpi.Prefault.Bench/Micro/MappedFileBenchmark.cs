namespace Sharpi.Prefault.Bench;

/// <summary>The base of the benchmarks that need a mapped temporary file: owns it and deletes it.</summary>
public abstract class MappedFileBenchmark : IDisposable
{
    private MappedTestFile? _file;

    internal MappedTestFile File => _file ?? throw new InvalidOperationException("GlobalSetup has not created the file yet.");

    protected void CreateFile(long length) => _file = new MappedTestFile(length);

    public void Dispose()
    {
        Dispose(disposing: true);
        GC.SuppressFinalize(this);
    }

    protected virtual void Dispose(bool disposing)
    {
        if (disposing)
        {
            _file?.Dispose();
            _file = null;
        }
    }
}
