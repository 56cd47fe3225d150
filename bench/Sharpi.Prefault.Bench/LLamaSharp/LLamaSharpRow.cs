using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using LLama;
using LLama.Common;
using LLama.Native;
using Sharpi.Prefault.LLamaSharp;
using Sharpi.Prefault.Samples.LLamaSharp;

namespace Sharpi.Prefault.Bench;

/// <summary>What one row measured, in its own process.</summary>
internal sealed record LLamaRowResult
{
    public required string Row { get; init; }
    public double LoadSeconds { get; init; }
    public double ReadySeconds { get; init; }
    public double FirstTokenSeconds { get; init; }
    public double SecondTokenSeconds { get; init; }
    public long PeakRssBytes { get; init; }
    public long PeakRssAfterLoadBytes { get; init; }
    public long RssAfterBytes { get; init; }
    public long RssFileAfterBytes { get; init; }
    public long GivenBackBytes { get; init; }
    public long GivenBackDuringLoadBytes { get; init; }
    public double ReleaseSeconds { get; init; }
    public int ReleaseCalls { get; init; }
    public long LockedBytes { get; init; }
    public long WarmedBytes { get; init; }
    public string? RepackSource { get; init; }
    public int RepackedTensors { get; init; }
    public long MajorFaults { get; init; }
    public int[] Tokens { get; init; } = [];
}

/// <summary>
/// The rows of <c>llamasharp</c>, and one row run the way a host runs LLamaSharp, in a process of its own (so that
/// VmHWM is the row's): the native library loaded first, then the clock starts: the row's own step before the init
/// (read + warm: <see cref="LLamaPrefault.Start"/>), the init (busy CPU on this thread), the load, two tokens decoded
/// greedily from BOS (first, second), more tokens for the identity check, and the memory figures.
/// </summary>
internal static class LLamaSharpRow
{
    internal const string Read = "read";
    internal const string ReadWarm = "read+warm";
    internal const string Mmap = "mmap";
    internal const string MmapReclaimAfter = "mmap+reclaim-after";
    internal const string MmapReclaimDuring = "mmap+reclaim-during";
    internal const string MmapLock = "mmap+lock";
    internal const string DirectIO = "directio";

    internal static readonly string[] All = [Read, ReadWarm, Mmap, MmapReclaimAfter, MmapReclaimDuring, MmapLock, DirectIO];

    /// <summary>What each row is, for the report's notes.</summary>
    internal static readonly string[] Descriptions =
    [
        $"{Read}: LLamaWeights.LoadFromFileAsync with LoadMode None (LLamaSharp's default: llama.cpp read()s the file into its own buffers).",
        $"{ReadWarm}: LLamaPrefault.Start (LoadMode None) before the init: PageCache.WarmAsync reads the file into the page cache beside it, without mapping it; then LoadAsync.",
        $"{Mmap}: LoadFromFileAsync with LoadMode MemoryMap (one MAP_POPULATE mapping; the repacked tensors' sources stay mapped).",
        $"{MmapReclaimAfter}: LLamaPrefault.LoadAsync (MemoryMap) giving the repacked tensors back after the load only.",
        $"{MmapReclaimDuring}: LLamaPrefault.LoadAsync (MemoryMap) with an LLamaLogTap: the repacked tensors given back during the load, in batches of 32 MiB.",
        $"{MmapLock}: LLamaPrefault.LoadAsync (MemoryMapAndLock): loaded with MemoryMap, repacked tensors given back, only the tensors read in place locked.",
        $"{DirectIO}: LoadFromFileAsync with LoadMode DirectIO.",
    ];

    /// <summary>The hidden <c>llamasharp-row ROW MODEL INIT_MS TOKENS</c> command: runs one row and prints its result as one JSON line.</summary>
    internal static int RunChild(string[] args)
    {
        LLamaRowResult result = Measure(args[0], args[1], int.Parse(args[2], CultureInfo.InvariantCulture), int.Parse(args[3], CultureInfo.InvariantCulture))
            .GetAwaiter().GetResult();
        Console.Out.WriteLine(JsonSerializer.Serialize(result));
        return 0;
    }

    private static async Task<LLamaRowResult> Measure(string row, string path, int initMs, int tokenCount)
    {
        NativeApi.llama_empty_call(); // the native library and its CPU backend loaded before the clock starts
        LLamaLogTap tap = LLamaLogTap.Install(); // every row: llama.cpp's lines go to the tap, and nowhere else
        var options = new LLamaLoadOptions { LogTap = tap };
        long started = Stopwatch.GetTimestamp();
        LLamaModelLoad? pending = row == ReadWarm ? LLamaPrefault.Start(Parameters(path, LLamaLoadMode.None), options) : null;
        BusyInit(initMs);

        long loadStarted = Stopwatch.GetTimestamp();
        LLamaLoadResult? companion = row switch
        {
            ReadWarm => await pending!.LoadAsync(),
            MmapReclaimAfter => await LLamaPrefault.LoadAsync(Parameters(path, LLamaLoadMode.MemoryMap), new LLamaLoadOptions { LogTap = options.LogTap, IsReleaseDuringLoadEnabled = false }),
            MmapReclaimDuring => await LLamaPrefault.LoadAsync(Parameters(path, LLamaLoadMode.MemoryMap), options),
            MmapLock => await LLamaPrefault.LoadAsync(Parameters(path, LLamaLoadMode.MemoryMapAndLock), options),
            _ => null,
        };
        LLamaWeights weights = companion?.Weights ?? await LLamaWeights.LoadFromFileAsync(Parameters(path, row switch
        {
            Read => LLamaLoadMode.None,
            Mmap => LLamaLoadMode.MemoryMap,
            DirectIO => LLamaLoadMode.DirectIO,
            _ => throw new BenchException($"unknown llamasharp row '{row}'"),
        }));
        double load = Stopwatch.GetElapsedTime(loadStarted).TotalSeconds;
        long peakAfterLoad = Status("VmHWM");

        long majorBefore = MajorFaults();
        using LLamaContext context = weights.CreateContext(Parameters(path, LLamaLoadMode.None));
        var batch = new LLamaBatch();
        int[] tokens = new int[tokenCount];
        double first = 0, second = 0, ready = 0;
        LLamaToken next = TinyLlamaModel.Bos;
        for (int i = 0; i < tokenCount; i++)
        {
            batch.Clear();
            batch.Add(next, i, LLamaSeqId.Zero, true);
            long decodeStarted = Stopwatch.GetTimestamp();
            if (context.Decode(batch) != DecodeResult.Ok)
            {
                throw new BenchException($"{row}: llama_decode failed at token {i}");
            }

            double seconds = Stopwatch.GetElapsedTime(decodeStarted).TotalSeconds;
            (first, second, ready) = i switch
            {
                0 => (seconds, second, Stopwatch.GetElapsedTime(started).TotalSeconds),
                1 => (first, seconds, ready),
                _ => (first, second, ready),
            };
            int best = ArgMax(context.NativeHandle.GetLogitsIth(0));
            tokens[i] = best;
            next = best;
        }

        var result = new LLamaRowResult
        {
            Row = row,
            LoadSeconds = load,
            ReadySeconds = ready,
            FirstTokenSeconds = first,
            SecondTokenSeconds = second,
            PeakRssBytes = Status("VmHWM"),
            PeakRssAfterLoadBytes = peakAfterLoad,
            RssAfterBytes = Status("VmRSS"),
            RssFileAfterBytes = Status("RssFile"),
            GivenBackBytes = companion is null ? 0 : companion.BytesReleasedDuringLoad + companion.BytesReleasedAfterLoad,
            GivenBackDuringLoadBytes = companion?.BytesReleasedDuringLoad ?? 0,
            ReleaseSeconds = companion?.ReleaseTime.TotalSeconds ?? 0,
            ReleaseCalls = companion?.ReleaseCalls ?? 0,
            LockedBytes = companion?.Lock?.LockedBytes ?? 0,
            WarmedBytes = companion?.Warm?.BytesRead ?? 0,
            RepackSource = companion?.RepackSource.ToString(),
            RepackedTensors = companion?.RepackedTensors.Count ?? 0,
            MajorFaults = MajorFaults() - majorBefore,
            Tokens = tokens,
        };
        if (companion is not null)
        {
            companion.Dispose();
        }
        else
        {
            weights.Dispose();
        }

        if (pending is not null)
        {
            await pending.DisposeAsync().ConfigureAwait(false);
        }

        return result;
    }

    private static ModelParams Parameters(string path, LLamaLoadMode mode) => new(path)
    {
        LoadMode = mode,
        ContextSize = 128,
        Threads = 1,
        BatchThreads = 1,
    };

    private static void BusyInit(int ms)
    {
        long started = Stopwatch.GetTimestamp();
        double sum = 0;
        while (Stopwatch.GetElapsedTime(started).TotalMilliseconds < ms)
        {
            sum += Math.Sqrt(sum + 1);
        }

        GC.KeepAlive(sum);
    }

    private static int ArgMax(ReadOnlySpan<float> logits)
    {
        int best = 0;
        for (int t = 1; t < logits.Length; t++)
        {
            if (logits[t] > logits[best])
            {
                best = t;
            }
        }

        return best;
    }

    private static long Status(string field)
    {
        foreach (string line in File.ReadLines("/proc/self/status"))
        {
            if (line.StartsWith(field + ":", StringComparison.Ordinal))
            {
                return long.Parse(line.AsSpan(field.Length + 1).Trim().TrimEnd("kB").Trim(), CultureInfo.InvariantCulture) * 1024;
            }
        }

        return 0;
    }

    private static long MajorFaults()
    {
        string stat = File.ReadAllText("/proc/self/stat");
        string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        return long.Parse(fields[9], CultureInfo.InvariantCulture);
    }
}
