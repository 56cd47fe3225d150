using Sharpi.Prefault.Tests.Models;

namespace Sharpi.Prefault.Tests.Platform;

/// <summary>
/// FileStatus's asking form (null where stat fails, no length but a regular file's), and the library's file-opening
/// entry points refuse a FIFO at once instead of blocking in open(2).
/// </summary>
public sealed class FileStatusTests
{
    private static readonly TimeSpan HangBound = TimeSpan.FromSeconds(10);

    [Fact]
    public void TryRegularLength_IsTheLengthOfARegularFile_AndNullForAnythingElse()
    {
        using var directory = new TempModelDirectory();
        string file = Path.Combine(directory.Path, "weights.bin");
        File.WriteAllBytes(file, new byte[12345]);

        Assert.Equal(12345, FileStatus.TryRegularLength(file));
        Assert.Null(FileStatus.TryRegularLength(directory.Path));
        Assert.Null(FileStatus.TryRegularLength(Path.Combine(directory.Path, "missing")));
        Assert.Null(FileStatus.TryRegularLength(Path.Combine(file, "under-a-file"))); // ENOTDIR: an IOException from stat
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void TryOf_OfADevice_KnowsItIsNoRegularFile_AndGivesNoLength()
    {
        Assert.Equal(FileKind.CharacterDevice, FileStatus.TryOf("/dev/zero")?.Kind);
        Assert.Null(FileStatus.TryRegularLength("/dev/zero"));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task ResidencyOfFile_OnAFifo_ThrowsInsteadOfBlocking()
    {
        await AssertRefusedWithinBound("pipe", fifo => Residency.OfFile(fifo));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public async Task PageCacheEvict_OnAFifo_ThrowsInsteadOfBlocking()
    {
        await AssertRefusedWithinBound("pipe", fifo => PageCache.Evict(fifo));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task DirectFileReaderOpen_OnAFifo_ThrowsInsteadOfBlocking()
    {
        await AssertRefusedWithinBound("weights.bin", fifo => DirectFileReader.Open(fifo));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void DirectFileReaderOpen_OnAProcfsFile_SaysItWouldReadNothing()
    {
        // /proc files report a size of 0: the reader used to open them and read 0 bytes without a word.
        IOException e = Assert.Throws<IOException>(() => DirectFileReader.Open("/proc/self/status"));

        Assert.Contains("procfs file", e.Message);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task TensorIndexRead_OfAFifoModel_ThrowsInsteadOfBlocking()
    {
        await AssertRefusedWithinBound("model.gguf", fifo => TensorIndex.Read(fifo));
    }

    [Fact]
    public void TensorIndexRead_OfAShardThatIsADirectory_SaysSo()
    {
        using var directory = new TempModelDirectory();
        Directory.CreateDirectory(Path.Combine(directory.Path, "shard.safetensors"));
        string index = directory.Write("model.safetensors.index.json", "{\"weight_map\": {\"a\": \"shard.safetensors\"}}");

        IOException e = Assert.Throws<IOException>(() => TensorIndex.Read(index));

        Assert.Contains("is a directory", e.Message);
    }

    /// <summary><paramref name="open"/> of a FIFO named <paramref name="name"/> throws an IOException that says so, within the hang bound.</summary>
    private static async Task AssertRefusedWithinBound(string name, Action<string> open)
    {
        using var directory = new TempModelDirectory();
        string fifo = MakeFifo(directory, name);

        Task<IOException> attempt = Task.Run(() => Assert.Throws<IOException>(() => open(fifo)));
        Assert.True(await Task.WhenAny(attempt, Task.Delay(HangBound)) == attempt, "blocked opening a FIFO");
        Assert.Contains("a FIFO", (await attempt).Message);
    }

    private static string MakeFifo(TempModelDirectory directory, string name)
    {
        string path = Path.Combine(directory.Path, name);
        using var mkfifo = System.Diagnostics.Process.Start("mkfifo", [path]);
        mkfifo.WaitForExit();
        Assert.Equal(0, mkfifo.ExitCode);
        return path;
    }
}
