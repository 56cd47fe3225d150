// LLamaSharpSample: what Sharpi.Prefault.LLamaSharp adds to a LLamaSharp host, per LoadMode, measured in one process.
//
//   dotnet run -c Release --project samples/LLamaSharp -- [--mib 256] [model.gguf]
//
// With no model it writes a llama-architecture GGUF of about 256 MiB of random Q4_0 weights (llama-2-7B-shaped
// blocks) to the temp folder. Each step loads the model from a cold page cache after 300 ms of "other init", decodes
// two tokens, and prints the load, the peak RSS of the step (VmHWM, reset before it) and the RSS after it.
using System.Diagnostics;
using System.Globalization;
using LLama;
using LLama.Common;
using LLama.Native;
using Microsoft.Extensions.Logging;
using Sharpi.Prefault;
using Sharpi.Prefault.LLamaSharp;
using Sharpi.Prefault.Samples.LLamaSharp;

(string path, long mib) = (string.Empty, 256L);
for (int i = 0; i < args.Length; i++)
{
    if (args[i] == "--mib")
    {
        mib = long.Parse(args[++i], CultureInfo.InvariantCulture);
    }
    else
    {
        path = args[i];
    }
}

if (!OperatingSystem.IsLinux())
{
    Console.WriteLine("The sample reads /proc and evicts the page cache: it runs on Linux.");
    return 0;
}

if (path.Length == 0)
{
    path = Path.Combine(Path.GetTempPath(), $"sharpi-llamasharp-{mib}m.gguf");
    var shape = TinyLlamaModel.Shape.Llama2_7B(1).WithLayersFor(mib << 20, TinyLlamaModel.WeightType.Q4_0);
    TinyLlamaModel.Write(path, shape, TinyLlamaModel.WeightType.Q4_0);
}

using ILoggerFactory loggerFactory = LoggerFactory.Create(b => b.AddSimpleConsole(o => o.SingleLine = true).SetMinimumLevel(LogLevel.Information));
ILogger log = loggerFactory.CreateLogger("host");
// llama.cpp's lines go through the tap (which learns the repacked tensors from them) and nowhere else.
LLamaLogTap tap = LLamaLogTap.Install();
Console.WriteLine($"model  {path} ({new FileInfo(path).Length >> 20} MiB)");

// A. LLamaSharp's default (LoadMode None: llama.cpp reads the file into its own buffers).
await Step("A. read (None)", async () => await LLamaWeights.LoadFromFileAsync(Parameters(LLamaLoadMode.None)), null);

// B. The same, with the page cache warmed from before the host's other init (no mapping: RSS stays read mode's).
await Step("B. read + warm", null, () => LLamaPrefault.Start(Parameters(LLamaLoadMode.None), Options()));

// C. MemoryMap alone: one MAP_POPULATE mapping; llama.cpp repacks the Q4_0 matrices and the mapped source stays resident.
await Step("C. mmap", async () => await LLamaWeights.LoadFromFileAsync(Parameters(LLamaLoadMode.MemoryMap)), null);

// D. MemoryMap with the companion: the repacked tensors' pages given back as llama.cpp finishes copying them.
await Step("D. mmap + give-back", null, () => LLamaPrefault.Start(Parameters(LLamaLoadMode.MemoryMap), Options()));

// E. MemoryMapAndLock with the companion: only the tensors read in place are locked.
await Step("E. mmap + lock", null, () => LLamaPrefault.Start(Parameters(LLamaLoadMode.MemoryMapAndLock), Options()));
return 0;

ModelParams Parameters(LLamaLoadMode mode) => new(path) { LoadMode = mode, ContextSize = 64, Threads = 1, BatchThreads = 1 };

LLamaLoadOptions Options() => new LLamaLoadOptions { LogTap = tap, Logger = log };

async Task Step(string name, Func<Task<LLamaWeights>>? plain, Func<LLamaModelLoad>? start)
{
    PageCache.Evict(path);
    File.WriteAllText("/proc/self/clear_refs", "5"); // resets VmHWM to the current RSS
    long started = Stopwatch.GetTimestamp();
    LLamaModelLoad? load = start?.Invoke();
    OtherInit();
    long loadStarted = Stopwatch.GetTimestamp();
    LLamaLoadResult? result = load is null ? null : await load.LoadAsync();
    using LLamaWeights weights = result?.Weights ?? await plain!();
    double loadSeconds = Stopwatch.GetElapsedTime(loadStarted).TotalSeconds;
    double first = Decode(weights);
    double ready = Stopwatch.GetElapsedTime(started).TotalSeconds;
    string added = result is null ? string.Empty
        : $"; gave back {(result.BytesReleasedDuringLoad + result.BytesReleasedAfterLoad) >> 20} MiB ({result.RepackedTensors.Count} tensors, {result.RepackSource})"
          + (result.Lock is { } lease ? $", locked {lease.LockedBytes >> 20} MiB" : string.Empty)
          + (result.Warm is { } warm ? $", warmed {warm.BytesRead >> 20} MiB" : string.Empty);
    Console.WriteLine($"{name,-20} load {loadSeconds:F2} s, ready {ready:F2} s (first token {first * 1000:F0} ms); peak RSS {Status("VmHWM")} MiB, RSS {Status("VmRSS")} MiB{added}");
    result?.Lock?.Dispose();
    if (load is not null)
    {
        await load.DisposeAsync();
    }
}

double Decode(LLamaWeights weights)
{
    using LLamaContext context = weights.CreateContext(Parameters(LLamaLoadMode.None));
    var batch = new LLamaBatch();
    batch.Add(TinyLlamaModel.Bos, 0, LLamaSeqId.Zero, true);
    long started = Stopwatch.GetTimestamp();
    context.Decode(batch);
    return Stopwatch.GetElapsedTime(started).TotalSeconds;
}

static void OtherInit()
{
    long started = Stopwatch.GetTimestamp();
    double sum = 0;
    while (Stopwatch.GetElapsedTime(started).TotalSeconds < 0.3)
    {
        sum += Math.Sqrt(sum + 1);
    }

    GC.KeepAlive(sum);
}

static long Status(string field) =>
    long.Parse(File.ReadLines("/proc/self/status").First(l => l.StartsWith(field + ":", StringComparison.Ordinal))[(field.Length + 1)..].Trim().Split(' ')[0], CultureInfo.InvariantCulture) >> 10;
