using System.Text;

namespace Sharpi.Prefault.Tests.DirectIO;

/// <summary>
/// btrfs reads compressed (and inline) extents through the page cache even for an O_DIRECT descriptor, so a reader
/// there that says Direct would bypass nothing. On a real btrfs (a loop device mounted with compress=zstd) the
/// compressed file must read buffered and say why; an incompressible file beside it (stored plain) reads Direct and
/// leaves the cache empty. Residency is measured as root (cachestat), before the bytes are compared.
/// </summary>
public sealed class DirectFileReaderBtrfsTests
{
    private const long FileBytes = 16 * TestFile.MiB;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.BtrfsLoop))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void Read_OfAZstdCompressedBtrfsFile_ReadsBuffered_AndSaysTheFilesystemReadsItThroughTheCache()
    {
        using LoopFilesystem btrfs = LoopFilesystem.Create("btrfs", 300 * TestFile.MiB, "compress=zstd");
        string path = Path.Combine(btrfs.MountPoint, "compressed.bin");
        WriteCompressible(path, FileBytes);
        PageCache.Evict(path);

        byte[] read = new byte[FileBytes];
        using var reader = DirectFileReader.Open(path);
        Assert.Equal(read.Length, reader.Read(0, read));
        long cached = Residency.OfFile(path).ResidentBytes;

        Assert.True(cached > FileBytes / 2, $"btrfs should read compressed extents through the page cache; {cached} bytes are cached");
        Assert.Equal(DirectReadMode.Buffered, reader.Mode);
        Assert.Contains("compressed", reader.FallbackReason, StringComparison.Ordinal);
        Assert.Equal(0, reader.Statistics.DirectBytesRead);
        Assert.Equal(File.ReadAllBytes(path), read);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.BtrfsLoop))]
    public void Read_OfAnIncompressibleFileOnTheSameBtrfs_ReadsDirect_AndLeavesTheCacheEmpty()
    {
        using LoopFilesystem btrfs = LoopFilesystem.Create("btrfs", 300 * TestFile.MiB, "compress=zstd");
        using TestFile file = TestFile.Create(FileBytes, btrfs.MountPoint); // random bytes: btrfs stores them plain

        byte[] read = new byte[FileBytes];
        using (var reader = DirectFileReader.Open(file.Path))
        {
            Assert.Equal(read.Length, reader.Read(0, read));
            Assert.Equal(DirectReadMode.Direct, reader.Mode);
            Assert.Null(reader.FallbackReason);
            Assert.Equal(FileBytes, reader.Statistics.DirectBytesRead);
        }

        Assert.Equal(0, Residency.OfFile(file.Path).ResidentBytes);
        Assert.Equal(File.ReadAllBytes(file.Path), read);
    }

    /// <summary>Text that zstd shrinks many times over, written and synced so btrfs has compressed it on disk.</summary>
    private static void WriteCompressible(string path, long length)
    {
        byte[] line = Encoding.ASCII.GetBytes("sharpi-prefault: a line that compresses well, 0123456789 abcdefghij\n");
        using (var stream = new FileStream(path, FileMode.CreateNew, FileAccess.Write))
        {
            for (long written = 0; written < length;)
            {
                int n = (int)Math.Min(line.Length, length - written);
                stream.Write(line, 0, n);
                written += n;
            }

            stream.Flush(flushToDisk: true);
        }
    }
}
