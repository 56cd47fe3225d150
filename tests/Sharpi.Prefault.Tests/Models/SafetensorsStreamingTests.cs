using System.Globalization;
using System.Text;

namespace Sharpi.Prefault.Tests.Models;

/// <summary>
/// A safetensors header streams through a window of 1 MiB: entries that straddle its end, an entry longer than it,
/// errors past it (at their file offsets), and the parse's peak memory against the header's size.
/// </summary>
public sealed class SafetensorsStreamingTests() : ModelFileTests("model.safetensors")
{
    [Fact]
    public void Read_HeaderOfManyWindows_ReadsEveryEntryAcrossTheWindowEnds()
    {
        // 60,000 entries (about 4 MiB) with a 1.5 MiB metadata string in the middle: longer than a window.
        var builder = new SafetensorsBuilder();
        for (int i = 0; i < 60_000; i++)
        {
            if (i == 30_000)
            {
                builder.Metadata("{\"note\":\"" + new string('x', 3 << 19) + "\"}");
            }

            builder.Tensor($"model.layers.{i}.weight", i % 2 == 0 ? "F32" : "BF16", [i % 7 + 1, 3], i % 2 == 0 ? 4 : 2);
        }

        TensorIndex index = Read(builder.Build());

        Assert.Equal(60_000, index.Tensors.Count);
        for (int i = 0; i < 60_000; i++)
        {
            TensorInfo t = index.Tensors[i];
            Assert.Equal($"model.layers.{i}.weight", t.Name);
            Assert.Equal(i % 2 == 0 ? "F32" : "BF16", t.DType);
            Assert.Equal([i % 7 + 1, 3L], t.Shape);
        }

        Assert.Same(index.Tensors[0].Shape, index.Tensors[14].Shape); // one array per distinct shape
    }

    [Fact]
    public void Read_ErrorPastTheFirstWindow_NamesItsFileOffset()
    {
        var builder = new SafetensorsBuilder();
        for (int i = 0; i < 40_000; i++)
        {
            builder.Tensor($"t.{i}", "F32", [1], 4);
        }

        builder.Raw("bad", "{\"dtype\":\"F33\",\"shape\":[1],\"data_offsets\":[0,4]}");
        byte[] bytes = builder.Build();

        ModelFormatException e = ReadFails(bytes);

        Assert.Contains("unknown dtype 'F33'", e.Message, StringComparison.Ordinal);
        Assert.Equal(IndexOf(bytes, "\"bad\""u8), e.Offset);
    }

    [Fact]
    public void Read_DuplicateNamePastTheFirstWindow_IsRefused()
    {
        var builder = new SafetensorsBuilder();
        for (int i = 0; i < 40_000; i++)
        {
            builder.Tensor($"t.{i}", "F32", [1], 4);
        }

        builder.Tensor("t.7", "F32", [1], 4);

        Assert.Contains("tensor name 't.7' appears twice", ReadFails(builder.Build()).Message, StringComparison.Ordinal);
    }

    /// <summary>
    /// The parse's peak RSS grows by at most 3x the header's bytes, measured in a child process at two sizes: the runtime
    /// commits a fixed amount on the first large allocation (about 20 MiB here, whatever the header), so the ratio is
    /// taken over the difference between the two, which is what a bigger header costs.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Read_HeaderParsePeak_GrowsAtMostThreeTimesTheHeader()
    {
        string warmUp = WriteHeader("warm.safetensors", 10);
        string small = WriteHeader("small.safetensors", 100_000);
        string large = WriteHeader("large.safetensors", 400_000);

        (long smallHeader, long smallGrowth) = Peak(small, warmUp);
        (long largeHeader, long largeGrowth) = Peak(large, warmUp);

        double ratio = (double)(largeGrowth - smallGrowth) / (largeHeader - smallHeader);
        Assert.True(ratio <= 3.0,
            $"the parse grew the process by {largeGrowth - smallGrowth} bytes more for {largeHeader - smallHeader} more header bytes ({ratio:F2}x); " +
            $"{smallGrowth} for {smallHeader}, {largeGrowth} for {largeHeader}");
    }

    private static (long Header, long Growth) Peak(string path, string warmUp)
    {
        CliRun run = ChildProcess.Run([ChildCases.HeaderParsePeak, path, warmUp], timeout: TimeSpan.FromMinutes(3));
        Assert.True(run.ExitCode == 0, $"exit {run.ExitCode}: {run.Err}");
        using var stream = File.OpenRead(path);
        Span<byte> length = stackalloc byte[8];
        stream.ReadExactly(length);
        return ((long)BitConverter.ToUInt64(length), long.Parse(ChildProcess.Value(run, "growth"), CultureInfo.InvariantCulture));
    }

    /// <summary>A header of short entries (about 68 bytes each, as the million-tensor file), written straight to disk.</summary>
    private string WriteHeader(string name, int tensors)
    {
        var header = new StringBuilder(tensors * 70).Append('{');
        for (int i = 0; i < tensors; i++)
        {
            header.Append(i == 0 ? "" : ",").Append(CultureInfo.InvariantCulture, $"\"t.{i}\":{{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[{4L * i},{4L * i + 4}]}}");
        }

        byte[] json = Encoding.UTF8.GetBytes(header.Append('}').ToString());
        string path = System.IO.Path.Combine(Files.Path, name);
        using var file = new FileStream(path, FileMode.CreateNew, FileAccess.Write);
        file.Write(GgufBuilder.U64((ulong)json.Length));
        file.Write(json);
        file.SetLength(8 + json.Length + 4L * tensors);
        return path;
    }

    private static long IndexOf(byte[] bytes, ReadOnlySpan<byte> what) => bytes.AsSpan().IndexOf(what);
}
