namespace Sharpi.Prefault.Tests.DirectIO;

/// <summary>Where Direct I/O is refused, the reader reads buffered, says why once, and still returns the right bytes.</summary>
public sealed class DirectFileReaderFallbackTests
{
    private const int EINVAL = global::Interop.LinuxConstants.EINVAL;
    private const int EIO = global::Interop.LinuxConstants.EIO;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Read_OnTmpfs_FallsBackToBuffered_AndReturnsSameBytes()
    {
        using TestFile file = TestFile.Create((2 * TestFile.MiB) + 99, "/dev/shm");
        using var reader = DirectFileReader.Open(file.Path);

        BufferedReference.AssertReadMatches(reader, 4095, 70_000);

        Assert.Equal(DirectReadMode.Buffered, reader.Mode);
        Assert.Contains("tmpfs", reader.FallbackReason, StringComparison.Ordinal);
        Assert.Equal(0, reader.Statistics.BufferBytes);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Open_WhereOpenRefusesODirect_FallsBackToBuffered_AndReturnsSameBytes()
    {
        // sysfs answers EINVAL to open(O_DIRECT), as FUSE and tmpfs before Linux 6.6 do.
        const string Path = "/sys/devices/system/cpu/online";
        using var reader = DirectFileReader.Open(Path);
        var destination = new byte[4096];

        int read = reader.Read(0, destination);

        Assert.Equal(DirectReadMode.Buffered, reader.Mode);
        Assert.Contains("refuses O_DIRECT", reader.FallbackReason, StringComparison.Ordinal);
        Assert.Contains($"errno {EINVAL}", reader.FallbackReason, StringComparison.Ordinal);
        Assert.InRange(read, 1, 4095);
        Assert.Equal(BufferedReference.Read(Path, 0, 4096), destination[..read]);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Read_WhenTheFirstDirectReadIsRefused_FallsBackToBuffered_AndReturnsSameBytes()
    {
        using TestFile file = TestFile.Create((3 * TestFile.MiB) + 5);
        DirectReadOptions options = new DirectReadOptions { SimulatedFirstReadErrno = EINVAL };
        using var reader = DirectFileReader.Open(file.Path, options);
        Assert.Equal(DirectReadMode.Direct, reader.Mode);

        BufferedReference.AssertReadMatches(reader, 1, (int)file.Length - 1);

        Assert.Equal(DirectReadMode.Buffered, reader.Mode);
        Assert.Contains("refused the first Direct I/O read", reader.FallbackReason, StringComparison.Ordinal);
        Assert.Equal(0, reader.Statistics.DirectBytesRead);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Fallback_IsLoggedOnce_ForAllLaterReads()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        var logger = new RecordingLogger();
        DirectReadOptions options = new DirectReadOptions { SimulatedFirstReadErrno = EINVAL, Logger = logger };
        using var reader = DirectFileReader.Open(file.Path, options);

        reader.Read(0, new byte[1000]);
        reader.Read(5000, new byte[1000]);
        reader.Read(9000, new byte[1000]);

        Assert.Single(logger.Entries, e => e.Id.Id == 200);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Read_WhenADirectReadFailsWithAnIOError_ThrowsIOExceptionNamingTheFileAndError()
    {
        (IOException e, string path, DirectReadMode modeAfter) = FirstReadFailingWithEio();

        Assert.Contains(path, e.Message, StringComparison.Ordinal);
        Assert.Contains($"errno {EIO}", e.Message, StringComparison.Ordinal);
        Assert.Equal(DirectReadMode.Direct, modeAfter);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Read_WhenADirectReadFailsWithAnIOError_ThrowsIOExceptionCarryingTheErrnoInHResult()
    {
        // As .NET's own file APIs on Unix: the HResult of the IOException is the errno itself.
        (IOException e, _, _) = FirstReadFailingWithEio();

        Assert.Equal(EIO, e.HResult);
    }

    [Fact]
    public void Open_WithDirectIOSwitchedOff_ReadsBuffered_AndSaysWhy()
    {
        using TestFile file = TestFile.Create(100_000);
        using var reader = DirectFileReader.Open(file.Path, new DirectReadOptions { IsDirectIOEnabled = false });

        BufferedReference.AssertReadMatches(reader, 777, 50_000);

        Assert.Equal(DirectReadMode.Buffered, reader.Mode);
        Assert.Contains("IsDirectIOEnabled", reader.FallbackReason, StringComparison.Ordinal);
    }

    /// <summary>What the first direct read of a 1 MiB file throws when it fails with EIO, the file's path, and the reader's mode after it.</summary>
    private static (IOException Error, string Path, DirectReadMode ModeAfter) FirstReadFailingWithEio()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        DirectReadOptions options = new DirectReadOptions { SimulatedFirstReadErrno = EIO };
        using var reader = DirectFileReader.Open(file.Path, options);

        IOException e = Assert.Throws<IOException>(() => reader.Read(0, new byte[1000]));
        return (e, file.Path, reader.Mode);
    }
}
