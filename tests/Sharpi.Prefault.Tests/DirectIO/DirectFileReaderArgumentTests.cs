namespace Sharpi.Prefault.Tests.DirectIO;

/// <summary>Caller errors fail at the call with the ArgumentException family; a missing file with the usual exception.</summary>
public sealed class DirectFileReaderArgumentTests
{
    [Fact]
    public void Open_WithNullPath_Throws()
    {
        Assert.Throws<ArgumentNullException>(() => DirectFileReader.Open(null!));
    }

    [Fact]
    public void Open_WithAMissingFile_ThrowsFileNotFound()
    {
        string path = Path.Combine(Path.GetTempPath(), $"sharpi-prefault-missing-{Guid.NewGuid():N}.bin");

        Assert.Throws<FileNotFoundException>(() => DirectFileReader.Open(path));
    }

    [Fact]
    public void Read_WithNegativeOffset_Throws()
    {
        using TestFile file = TestFile.Create(8192);
        using var reader = DirectFileReader.Open(file.Path);

        Assert.Throws<ArgumentOutOfRangeException>(() => reader.Read(-1, new byte[10]));
        Assert.Throws<ArgumentOutOfRangeException>(() => reader.Read(-1, 1, 1));
    }

    [Fact]
    public void Read_WithNegativeLength_Throws()
    {
        using TestFile file = TestFile.Create(8192);
        using var reader = DirectFileReader.Open(file.Path);

        Assert.Throws<ArgumentOutOfRangeException>(() => reader.Read(0, 1, -1));
    }

    [Fact]
    public void Read_IntoANullPointer_Throws()
    {
        using TestFile file = TestFile.Create(8192);
        using var reader = DirectFileReader.Open(file.Path);

        Assert.Throws<ArgumentNullException>(() => reader.Read(0, 0, 10));
    }

    [Fact]
    public void Read_AfterDispose_Throws()
    {
        using TestFile file = TestFile.Create(8192);
        var reader = DirectFileReader.Open(file.Path);
        reader.Dispose();

        Assert.Throws<ObjectDisposedException>(() => reader.Read(0, new byte[10]));
    }

    [Fact]
    public void Read_WithACancelledToken_Throws()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using var reader = DirectFileReader.Open(file.Path);

        Assert.ThrowsAny<OperationCanceledException>(() => reader.Read(0, new byte[1000], new CancellationToken(canceled: true)));
    }
}
