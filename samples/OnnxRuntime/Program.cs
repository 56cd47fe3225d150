// OnnxRuntimeSample: ONNX Runtime's first inference at warm speed, with the weights mapped by ONNX Runtime itself.
//
//   dotnet run -c Release --project samples/OnnxRuntime -- [model.onnx weights.data]
//
// With no argument it writes a 256 MiB model of its own (16 MatMul layers, external data) to the temp folder.
using System.Diagnostics;
using Microsoft.Extensions.Logging;
using Microsoft.ML.OnnxRuntime;
using Microsoft.ML.OnnxRuntime.Tensors;
using Sharpi.Prefault;
using Sharpi.Prefault.Samples.OnnxRuntime;

using ILoggerFactory loggerFactory = LoggerFactory.Create(b => b.AddSimpleConsole(o => o.SingleLine = true).SetMinimumLevel(LogLevel.Information));
ILogger log = loggerFactory.CreateLogger("engine");

const int Dim = 2048;
string modelPath, dataPath;
if (args.Length >= 2)
{
    (modelPath, dataPath) = (args[0], args[1]);
}
else
{
    modelPath = Path.Combine(Path.GetTempPath(), "sharpi-sample.onnx");
    dataPath = modelPath + ".data";
    MatMulChainModel.Write(modelPath, dataPath, layers: 16, Dim);
}

var input = new DenseTensor<float>(MatMulChainModel.Input(Dim), [1, Dim]);

// A. Prepacking off: what memory-conscious hosts set. ONNX Runtime maps each external-data initializer itself
//    (read-write, private: one mapping per initializer) and its kernels read the weights from there, so the first
//    inference faults every page. Find those mappings after the session is created and make them resident, in the
//    background while the host does its other init work (a tokenizer, a second model); a host with no other work
//    calls MmapPrefault.Run(regions) instead.
Evict(dataPath);
using (var options = new SessionOptions())
{
    options.AddSessionConfigEntry("session.disable_prepacking", "1");
    long started = Stopwatch.GetTimestamp();
    using var session = new InferenceSession(modelPath, options);
    double create = Seconds(started);

    IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfFile(dataPath);
    await using (PrefaultHandle prefault = MmapPrefault.Start(regions, new PrefaultOptions { Label = "onnx weights", Logger = log }))
    {
        OtherInitWork();
        PrefaultResult result = await prefault.Completion;
        double resident = Residency.Measure(regions).Percent;
        Log.Found(log, regions.Count, result.Bytes, resident);
    }

    (double first, double second) = TwoInferences(session, input);
    Log.Inferences(log, "prepacking off", create, first, second);
}

// B. Prepacking on (the default): session creation copies the weights out of the mapping into ONNX Runtime's own
//    packed buffers, then unmaps them. Warm the weights file's page cache first (PageCache.WarmAsync: read in the
//    background, nothing mapped, so the process's peak RSS stays the session's own), so the copy reads memory instead
//    of the disk; after creation nothing reads the file any more, so give its page cache back.
Evict(dataPath);
using (var options = new SessionOptions())
{
    long started = Stopwatch.GetTimestamp();
    PageCacheWarmResult warmed = await PageCache.WarmAsync(dataPath);
    double warm = Seconds(started);
    var session = new InferenceSession(modelPath, options);
    double created = Seconds(started) - warm;
    Log.Warmed(log, warm, warmed.GiBPerSecond, created);

    using (session)
    {
        double create = Seconds(started);
        long rssBefore = Environment.WorkingSet;
        double cachedBefore = Residency.OfFile(dataPath).Percent;
        Evict(dataPath); // the weights now live in ONNX Runtime's packed buffers
        long rssAfter = Environment.WorkingSet;
        double cachedAfter = Residency.OfFile(dataPath).Percent;
        Log.GaveBack(log, cachedBefore, cachedAfter, rssBefore >> 20, rssAfter >> 20);

        (double first, double second) = TwoInferences(session, input);
        Log.Inferences(log, "prepacking on", create, first, second);
    }
}

static (double First, double Second) TwoInferences(InferenceSession session, DenseTensor<float> input)
{
    NamedOnnxValue[] inputs = [NamedOnnxValue.CreateFromTensor(MatMulChainModel.InputName, input)];
    double[] seconds = new double[2];
    for (int i = 0; i < seconds.Length; i++)
    {
        long started = Stopwatch.GetTimestamp();
        using IDisposableReadOnlyCollection<DisposableNamedOnnxValue> outputs = session.Run(inputs);
        seconds[i] = Seconds(started);
    }

    return (seconds[0], seconds[1]);
}

// Stands in for the host's other init: 200 ms of work on one core while the prefault reads on the others.
static void OtherInitWork()
{
    long started = Stopwatch.GetTimestamp();
    double sum = 0;
    while (Seconds(started) < 0.2)
    {
        sum += Math.Sqrt(sum + 1);
    }

    GC.KeepAlive(sum);
}

// Cold start for the demo: drop the weights from the page cache, where the OS lets us.
static void Evict(string path)
{
    if (OperatingSystem.IsLinux())
    {
        PageCache.Evict(path);
    }
}

static double Seconds(long started) => Stopwatch.GetElapsedTime(started).TotalSeconds;

internal static partial class Log
{
    [LoggerMessage(Level = LogLevel.Information, Message = "Found ONNX Runtime's {Mappings} mappings of the weights; prefaulted {Bytes:N0} bytes, {Percent:F0}% resident")]
    internal static partial void Found(ILogger logger, int mappings, long bytes, double percent);

    [LoggerMessage(Level = LogLevel.Information, Message = "{Setting}: session created in {Create:F3} s; first inference {First:F3} s, second {Second:F3} s ({Ratio:F2}x)")]
    private static partial void Inferences(ILogger logger, string setting, double create, double first, double second, double ratio);

    internal static void Inferences(ILogger logger, string setting, double create, double first, double second) =>
        Inferences(logger, setting, create, first, second, first / second);

    [LoggerMessage(Level = LogLevel.Information, Message = "Weights warmed in {Warm:F3} s ({GiBPerSecond:F2} GiB/s) before the session; creating it took {Create:F3} s")]
    internal static partial void Warmed(ILogger logger, double warm, double gibPerSecond, double create);

    // RSS does not move (nothing maps the file after creation); the page cache, which counts against the machine and the container, does.
    [LoggerMessage(Level = LogLevel.Information, Message = "Gave the weights' page cache back: weights cached {CachedBefore:F0}% -> {CachedAfter:F0}% (RSS {RssBefore} -> {RssAfter} MiB: nothing maps the file any more)")]
    internal static partial void GaveBack(ILogger logger, double cachedBefore, double cachedAfter, long rssBefore, long rssAfter);
}
