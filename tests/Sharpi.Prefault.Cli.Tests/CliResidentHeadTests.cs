using System.Buffers.Binary;
using System.Text;
using Sharpi.Prefault.Tests.Models;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary><c>resident</c> reads headers to find tensors; the pages that read brings in are not the file's residency.</summary>
public sealed class CliResidentHeadTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Resident_OfAnEvictedGguf_CountsNoPageItsOwnHeaderReadBroughtIn()
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();
        CliModelFiles.Evict(gguf);

        JsonElement file = CliRun.Of("resident", gguf, "--json").Json().GetProperty("files")[0];

        Assert.Equal(0, file.GetProperty("residentBytes").GetInt64());
        Assert.Equal(0, file.GetProperty("residentPages").GetInt64());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Resident_OfAnEvictedShardedModel_CountsNoPageItsOwnHeaderReadsBroughtIn()
    {
        using var model = new CliModelFiles();
        string index = model.Sharded();
        foreach (string shard in Directory.GetFiles(model.Directory, "*.safetensors"))
        {
            CliModelFiles.Evict(shard);
        }

        JsonElement[] files = [.. CliRun.Of("resident", index, "--json").Json().GetProperty("files").EnumerateArray()];

        Assert.Equal(2, files.Length);
        Assert.All(files, f => Assert.Equal(0, f.GetProperty("residentBytes").GetInt64()));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Resident_OfACachedGguf_StillCountsTheHeader()
    {
        using var model = new CliModelFiles();
        string gguf = model.Gguf();
        _ = File.ReadAllBytes(gguf);

        JsonElement file = CliRun.Of("resident", gguf, "--json").Json().GetProperty("files")[0];

        Assert.Equal(new FileInfo(gguf).Length, file.GetProperty("residentBytes").GetInt64());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Resident_OfAnEvictedGgufWithAHeaderOver64MiB_CountsNoPageItsOwnHeaderReadBroughtIn()
    {
        // The old snapshot reached 64 MiB into the file: the header pages read past it were reported resident (23%).
        using var model = new CliModelFiles();
        string gguf = Path.Combine(model.Directory, "big-header.gguf");
        long headerBytes = WriteGgufWithAStringArrayHeader(gguf, 72L << 20);
        Assert.True(headerBytes > 64L << 20);
        CliModelFiles.Evict(gguf);

        CliRun run = CliRun.Of("resident", gguf, "--json");

        Assert.Equal(0, run.ExitCode);
        JsonElement file = run.Json().GetProperty("files")[0];
        Assert.Equal(0, file.GetProperty("residentBytes").GetInt64());
        Assert.Equal(0, file.GetProperty("tensors")[0].GetProperty("residentBytes").GetInt64());
        Assert.True(Residency.OfFile(gguf).ResidentBytes > 64L << 20, "the header read should have brought the header in");
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Resident_OfAnEvictedGgufWhoseFirstTensorSharesPageZero_CreditsItWithNoHeaderByte()
    {
        // GGUF's default alignment is 32: the first tensor starts a few hundred bytes in, inside the header's page.
        using var model = new CliModelFiles();
        string gguf = model.Write("unaligned.gguf", new GgufBuilder().F32("first.weight", 1024, 64).F32("second.weight", 1024, 64).Build(out long dataStart));
        Assert.True(dataStart < Environment.SystemPageSize);
        CliModelFiles.Evict(gguf);

        CliRun run = CliRun.Of("resident", gguf, "--json");

        Assert.Equal(0, run.ExitCode);
        JsonElement file = run.Json().GetProperty("files")[0];
        Assert.Equal(0, file.GetProperty("residentBytes").GetInt64());
        Assert.All(file.GetProperty("tensors").EnumerateArray(), t => Assert.Equal(0, t.GetProperty("residentBytes").GetInt64()));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Resident_OfAGgufWithOnlyPageZeroCached_CreditsTheFirstTensorWithItsOwnBytesOnly()
    {
        using var model = new CliModelFiles();
        string gguf = model.Write("page0.gguf", new GgufBuilder().F32("first.weight", 1024, 64).Build(out long dataStart));
        CliModelFiles.Evict(gguf);
        using (var stream = new FileStream(gguf, FileMode.Open, FileAccess.Read, FileShare.Read, 1, FileOptions.RandomAccess))
        {
            stream.ReadExactly(new byte[16]);
        }

        JsonElement tensor = CliRun.Of("resident", gguf, "--json").Json().GetProperty("files")[0].GetProperty("tensors")[0];

        Assert.Equal(Environment.SystemPageSize - dataStart, tensor.GetProperty("residentBytes").GetInt64());
    }

    /// <summary>
    /// Writes a GGUF whose header is one string array of <paramref name="headerBytes"/> (64-byte strings: the reader reads
    /// every length, so every page of the header is read) and one small tensor; returns where the data starts.
    /// Streamed to disk: no array of the file's size in the test.
    /// </summary>
    private static long WriteGgufWithAStringArrayHeader(string path, long headerBytes)
    {
        byte[] text = Encoding.ASCII.GetBytes(new string('t', 64));
        long count = headerBytes / (8 + text.Length);
        using var stream = new FileStream(path, FileMode.CreateNew, FileAccess.Write, FileShare.None, 1 << 20);
        stream.Write("GGUF"u8);
        WriteUInt32(stream, 3);
        WriteUInt64(stream, 1); // tensors
        WriteUInt64(stream, 1); // key-value pairs
        WriteString(stream, "tokenizer.ggml.tokens"u8);
        WriteUInt32(stream, 9); // array
        WriteUInt32(stream, 8); // of strings
        WriteUInt64(stream, (ulong)count);
        for (long i = 0; i < count; i++)
        {
            WriteString(stream, text);
        }

        WriteString(stream, "only.weight"u8);
        WriteUInt32(stream, 1);
        WriteUInt64(stream, 1024);
        WriteUInt32(stream, 0); // F32
        WriteUInt64(stream, 0);
        long dataStart = (stream.Position + 31) / 32 * 32;
        stream.Write(new byte[dataStart - stream.Position + 4096]);
        stream.Flush(flushToDisk: true);
        return dataStart;

        static void WriteString(Stream s, ReadOnlySpan<byte> value)
        {
            WriteUInt64(s, (ulong)value.Length);
            s.Write(value);
        }

        static void WriteUInt32(Stream s, uint value)
        {
            Span<byte> b = stackalloc byte[4];
            BinaryPrimitives.WriteUInt32LittleEndian(b, value);
            s.Write(b);
        }

        static void WriteUInt64(Stream s, ulong value)
        {
            Span<byte> b = stackalloc byte[8];
            BinaryPrimitives.WriteUInt64LittleEndian(b, value);
            s.Write(b);
        }
    }
}
