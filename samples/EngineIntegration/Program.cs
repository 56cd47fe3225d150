// EngineIntegration: the prefault code an inference engine needs, in the order an engine runs it.
//
//   dotnet run --project samples/EngineIntegration -- [model.gguf]
//
// With no argument it writes a small GGUF of its own so it runs anywhere.
using System.Buffers.Binary;
using System.IO.MemoryMappedFiles;
using System.Text;
using Microsoft.Extensions.Logging;
using Sharpi.Prefault;

using ILoggerFactory loggerFactory = LoggerFactory.Create(b => b.AddSimpleConsole(o => o.SingleLine = true).SetMinimumLevel(LogLevel.Information));
ILogger log = loggerFactory.CreateLogger("engine");

string modelPath = args.Length > 0 ? args[0] : SampleModel.Write(Path.Combine(Path.GetTempPath(), "sharpi-sample.gguf"));

// 1. Read the tensor table (headers only) and map the file read-only, as llama.cpp-style engines do.
TensorIndex index = TensorIndex.Read(modelPath);
using var map = MemoryMappedFile.CreateFromFile(modelPath, FileMode.Open, null, 0, MemoryMappedFileAccess.Read);
using MemoryMappedViewAccessor view = map.CreateViewAccessor(0, 0, MemoryMappedFileAccess.Read);

// 2. The tensors this engine reads from the mapping on the CPU, hot first: a partial prefault (the RAM gate) keeps
//    this order, so the layers the first token needs come in before the rest.
var hot = new TensorSelection(include: ["token_embd.*", "blk.0.*", "blk.1.*"]);
var rest = new TensorSelection(exclude: ["token_embd.*", "blk.0.*", "blk.1.*", "output.*"]);
List<PrefaultRegion> cpuRegions = [.. index.Regions(view, hot), .. index.Regions(view, rest)];

// 3. Start the prefault before the engine's own init work, so disk reads overlap it instead of the first request.
//    Dispose (here: at the end of the scope) cancels and waits, so nothing touches the view after it is unmapped.
//    The engine's shutdown token comes last: Ctrl+C stops the sweep between chunks (the result says IsCanceled).
using var shutdown = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) => { e.Cancel = true; shutdown.Cancel(); };
await using PrefaultHandle prefault = MmapPrefault.Start(cpuRegions, PrefaultOptions.Default with
{
    Label = Path.GetFileName(modelPath),
    Logger = log,
    // Leave a core to the init work the prefault overlaps.
    MaxDegreeOfParallelism = Math.Max(1, Environment.ProcessorCount - 1),
}, shutdown.Token);

// 4. The engine's init work. Here: "upload" the output head, i.e. copy it out of the mapping into memory the engine
//    owns (a GPU buffer, a repacked layout), as engines do for tensors they run elsewhere.
IReadOnlyList<PrefaultRegion> copiedOut = index.Regions(view, new TensorSelection(include: ["output.*"]));
long copiedBytes = CopyOut(view, index.Select(new TensorSelection(include: ["output.*"])));
Log.CopiedOut(log, copiedBytes);

// 5. The copied tensors' source pages now only inflate RSS: hand them back. The mapping stays valid.
ReclaimResult reclaim = MmapReclaim.Release(copiedOut, ReclaimOptions.Default with { Logger = log });

// 6. Before the first request: wait for the prefault (it never throws; a failure is in the result).
PrefaultResult result = await prefault.Completion;
ResidencyInfo residency = Residency.Measure(cpuRegions);

Console.WriteLine($"""
    model          {modelPath} ({index.Format}, {index.Tensors.Count} tensors)
    prefault       ran={result.HasRun} method={result.Method} {result.Bytes} bytes in {result.Elapsed.TotalMilliseconds:0.0} ms ({result.GiBPerSecond:0.00} GiB/s)
                   {result.BytesAlreadyResident} bytes were already resident; {result.Reason}
    CPU tensors    {residency.Percent:0.0}% resident of {residency.Bytes} bytes
    reclaimed      {reclaim.BytesReleased} of {reclaim.BytesRequested} bytes ({reclaim.Reason})
    """);
return result.Failures.Count == 0 ? 0 : 1;

static long CopyOut(MemoryMappedViewAccessor view, IReadOnlyList<TensorInfo> tensors)
{
    long total = 0;
    foreach (TensorInfo tensor in tensors)
    {
        byte[] owned = new byte[tensor.Length];
        view.ReadArray(tensor.Offset, owned, 0, owned.Length);
        total += owned.Length;
    }

    return total;
}

/// <summary>The engine's log messages, declared once (allocation-free when the level is off).</summary>
internal static partial class Log
{
    [LoggerMessage(Level = LogLevel.Information, Message = "Init: copied {Bytes} bytes of the output head out of the mapping")]
    public static partial void CopiedOut(ILogger logger, long bytes);
}

/// <summary>Writes a small GGUF (v3, F32 tensors, 32-byte alignment) by the ggml spec, so the sample needs no download.</summary>
internal static class SampleModel
{
    public static string Write(string path)
    {
        string[] names = ["token_embd.weight", .. Enumerable.Range(0, 4).SelectMany(l => new[] { $"blk.{l}.attn_q.weight", $"blk.{l}.ffn_up.weight" }), "output.weight"];
        const long Elements = 256 * 1024; // 1 MiB of F32 per tensor
        using var file = new BinaryWriter(File.Create(path));
        file.Write("GGUF"u8);
        file.Write(3u);
        file.Write((ulong)names.Length);
        file.Write(0UL); // no metadata: the default alignment (32) applies
        for (int i = 0; i < names.Length; i++)
        {
            byte[] name = Encoding.UTF8.GetBytes(names[i]);
            file.Write((ulong)name.Length);
            file.Write(name);
            file.Write(1u);            // n_dims
            file.Write((ulong)Elements);
            file.Write(0u);            // GGML_TYPE_F32
            file.Write((ulong)(i * Elements * 4));
        }

        file.Write(new byte[(32 - (file.BaseStream.Position % 32)) % 32]);
        byte[] data = new byte[Elements * 4];
        for (int i = 0; i < names.Length; i++)
        {
            BinaryPrimitives.WriteInt32LittleEndian(data, i);
            file.Write(data);
        }

        return path;
    }
}
