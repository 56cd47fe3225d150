// EngineIntegration: the prefault code an inference engine needs, in the order an engine runs it.
//
//   dotnet run --project samples/EngineIntegration -- [model.gguf]
//
// With no argument it writes a small GGUF of its own so it runs anywhere, and evicts it from the page cache first, so
// the run starts cold as an engine's does after a reboot (a model you name is used as it is: the sample never evicts it).
using System.Buffers.Binary;
using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Text;
using Microsoft.Extensions.Logging;
using Sharpi.Prefault;

using ILoggerFactory loggerFactory = LoggerFactory.Create(b => b.AddSimpleConsole(o => o.SingleLine = true).SetMinimumLevel(LogLevel.Information));
ILogger log = loggerFactory.CreateLogger("engine");

bool ownModel = args.Length == 0;
string modelPath = ownModel ? SampleModel.Write(Path.Combine(Path.GetTempPath(), "sharpi-sample.gguf")) : args[0];

// 0. A file just written is all in the page cache, and a prefault of it only maps pages. The sample makes its own file
//    cold first (PageCache.Evict: fsync, then posix_fadvise DONTNEED; a file's writer needs no root for it), so the
//    first request below waits for real reads, as it would on a cold start.
string coldStart = ownModel ? MakeCold(modelPath) : "not evicted: the model you named is used as it is";
Log.ColdStart(log, coldStart);

// 1. Map the model read-only, as llama.cpp-style engines do: MappedModel reads the tensor table (headers only), maps
//    the file (every shard, for a sharded safetensors index) and closes the descriptors. It owns the mappings: it is
//    disposed last, after the prefault handle below.
using MappedModel model = MappedModel.Open(modelPath);
TensorIndex index = model.Index ?? throw new InvalidOperationException($"{modelPath} is neither GGUF nor safetensors.");

// 2. The tensors this engine reads from the mapping on the CPU, hot first: the embeddings and the first layers, then
//    the rest. The sweep works in this order (and a partial prefault under the RAM gate keeps it), so the layers the
//    first token needs come in before the others.
var hot = new TensorSelection(include: ["token_embd.*", "blk.0.*", "blk.1.*"]);
var cpu = new TensorSelection(exclude: ["output.*"]);
IReadOnlyList<PrefaultRegion> cpuRegions = model.Regions(hot, cpu);

// The CPU tensors' residency before the prefault, for the summary only (an engine skips it): the prefault's effect.
ResidencyInfo before = Residency.Measure(cpuRegions);

// 3. Start the prefault before the engine's own init work, so disk reads overlap it instead of the first request.
//    Dispose (here: at the end of the scope) cancels and waits, so nothing touches the mapping after it is unmapped.
//    The engine's shutdown token comes last: Ctrl+C stops the sweep between chunks (the result says IsCanceled).
using var shutdown = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) => { e.Cancel = true; shutdown.Cancel(); };
long started = Stopwatch.GetTimestamp();
await using PrefaultHandle prefault = MmapPrefault.Start(cpuRegions, new PrefaultOptions
{
    Label = Path.GetFileName(modelPath),
    Logger = log,
    // Leave a core to the init work the prefault overlaps.
    MaxDegreeOfParallelism = Math.Max(1, Environment.ProcessorCount - 1),
}, shutdown.Token);

// 4. The engine's init work. Here: "upload" the output head, i.e. copy it out of the mapping into memory the engine
//    owns (a GPU buffer, a repacked layout), as engines do for tensors they run elsewhere.
IReadOnlyList<PrefaultRegion> copiedOut = model.Regions(new TensorSelection(include: ["output.*"]));
long copiedBytes = CopyOut(copiedOut);
Log.CopiedOut(log, copiedBytes);

// 5. The copied tensors' source pages now only inflate RSS: hand them back. The mapping stays valid.
ReclaimResult reclaim = MmapReclaim.Release(copiedOut, new ReclaimOptions { Logger = log });

// 6. The first request, layer by layer: each layer starts as soon as the sweep is done with its tensors
//    (WhenReady never throws; a region the sweep left out is ready too, and then faults in on first use), while the
//    later layers still load. The layers come in the order of the regions, which is the hot-first order above.
long checksum = 0;
foreach ((string layer, List<int> tensors) in Layers(cpuRegions))
{
    foreach (int i in tensors)
    {
        await prefault.WhenReady(i);
    }

    bool stillLoading = !prefault.Completion.IsCompleted;
    checksum += Compute(cpuRegions, tensors);
    double milliseconds = Stopwatch.GetElapsedTime(started).TotalMilliseconds;
    Log.LayerComputed(log, layer, milliseconds, stillLoading);
}

// 7. The whole result (it never throws; a failure is in the result).
PrefaultResult result = await prefault.Completion;
ResidencyInfo residency = Residency.Measure(cpuRegions);

// 8. When the engine's native code maps the weights (llama.cpp, a C++ or Rust safetensors loader), there are no
//    views to take regions from: NativeMappings finds the mappings of a file in this process. Here the one found
//    is MappedModel's; in an engine it is the native loader's, and the regions go to MmapPrefault the same way.
string native = NativeMappings.IsSupported
    ? Describe(NativeMappings.OfFile(modelPath))
    : "not supported on this OS";

Console.WriteLine($"""
    model          {modelPath} ({index.Format}, {index.Tensors.Count} tensors)
    cold start     {coldStart}
    prefault       ran={result.HasRun} method={result.Method} {result.Bytes} bytes in {result.Elapsed.TotalMilliseconds:0.0} ms ({result.GiBPerSecond:0.00} GiB/s)
                   {result.BytesAlreadyResident} bytes were already resident; {result.Reason}
    CPU tensors    {before.Percent:0.0}% resident before the prefault, {residency.Percent:0.0}% after, of {residency.Bytes} bytes
    first request  checksum {checksum}
    reclaimed      {reclaim.BytesReleased} of {reclaim.BytesRequested} bytes ({reclaim.Reason})
    found mapped   {native}
    """);
return result.Failures.Count == 0 ? 0 : 1;

// Drops the file's cached pages and says what stayed, and why it might have, where the kernel kept some.
static string MakeCold(string path)
{
    if (!OperatingSystem.IsLinux())
    {
        return "not evicted: PageCache.Evict needs Linux's posix_fadvise(DONTNEED); the file is still cached from its write";
    }

    try
    {
        ResidencyInfo left = PageCache.Evict(path);
        if (left.Error is not null)
        {
            return $"evicted, but the cache left could not be measured: {left.Error}";
        }

        return left.ResidentBytes == 0
            ? $"evicted with PageCache.Evict: 0 of {left.Bytes} bytes cached"
            : $"evicted with PageCache.Evict, but the kernel kept {left.ResidentBytes} of {left.Bytes} bytes cached " +
              "(another process maps or locks them, or wrote them again)";
    }
    catch (Exception e) when (e is IOException or UnauthorizedAccessException)
    {
        return $"not evicted ({e.Message}): the file is still cached from its write";
    }
}

// The regions' indexes grouped by layer (token_embd, blk.0, blk.1, ...), in the order the layers first appear.
static List<(string Layer, List<int> Tensors)> Layers(IReadOnlyList<PrefaultRegion> regions)
{
    var layers = new List<(string Layer, List<int> Tensors)>();
    for (int i = 0; i < regions.Count; i++)
    {
        string key = TensorIndex.GroupKey(regions[i].Name!);
        int at = layers.FindIndex(l => l.Layer == key);
        if (at < 0)
        {
            layers.Add((key, [i]));
        }
        else
        {
            layers[at].Tensors.Add(i);
        }
    }

    return layers;
}

// A layer's "compute": reads every byte of its tensors from the mapping.
static long Compute(IReadOnlyList<PrefaultRegion> regions, List<int> tensors)
{
    byte[] buffer = new byte[64 * 1024];
    long sum = 0;
    foreach (int i in tensors)
    {
        PrefaultRegion tensor = regions[i];
        for (long offset = 0; offset < tensor.Length; offset += buffer.Length)
        {
            int count = (int)Math.Min(buffer.Length, tensor.Length - offset);
            Marshal.Copy(tensor.Address + (nint)offset, buffer, 0, count);
            foreach (byte b in buffer.AsSpan(0, count))
            {
                sum += b;
            }
        }
    }

    return sum;
}

static long CopyOut(IReadOnlyList<PrefaultRegion> tensors)
{
    long total = 0;
    foreach (PrefaultRegion tensor in tensors)
    {
        byte[] owned = new byte[tensor.Length];
        Marshal.Copy(tensor.Address, owned, 0, owned.Length);
        total += owned.Length;
    }

    return total;
}

static string Describe(IReadOnlyList<PrefaultRegion> found)
{
    long bytes = 0;
    foreach (PrefaultRegion region in found)
    {
        bytes += region.Length;
    }

    return $"{found.Count} mapping(s) of the file in this process, {bytes} bytes (NativeMappings.OfFile)";
}

/// <summary>The engine's log messages, declared once (allocation-free when the level is off).</summary>
internal static partial class Log
{
    [LoggerMessage(Level = LogLevel.Information, Message = "Cold start: {ColdStart}")]
    public static partial void ColdStart(ILogger logger, string coldStart);

    [LoggerMessage(Level = LogLevel.Information, Message = "Init: copied {Bytes} bytes of the output head out of the mapping")]
    public static partial void CopiedOut(ILogger logger, long bytes);

    [LoggerMessage(Level = LogLevel.Information, Message = "First request: {Layer} computed at {Milliseconds:0.0} ms (later layers still loading: {StillLoading})")]
    public static partial void LayerComputed(ILogger logger, string layer, double milliseconds, bool stillLoading);
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
