// LlamaCppSample: what the library adds to a host of llama.cpp (the C API, the prebuilt libllama that
// samples/LlamaCpp/get-llama.sh fetches), measured.
//
//   samples/LlamaCpp/get-llama.sh
//   dotnet run -c Release --project samples/LlamaCpp -- [--type q4_0|f32] [--mib 256] [model.gguf]
//
// With no model it writes a llama-architecture GGUF of about 256 MiB of random Q4_0 weights to the temp folder.
// llama.cpp maps the weights itself (load_mode mmap, with MAP_POPULATE): its load reads the whole file, so its first
// token already runs at warm speed. What is left to a host: start reading the weights before the load, while its other
// init runs; see which of its pages are mapped and resident; lock the ones it reads in place; and give back the pages
// of the tensors the CPU backend repacked into its own buffers (still mapped, and counted in RSS, after the copy).
using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;
using Microsoft.Extensions.Logging;
using Sharpi.Prefault;
using Sharpi.Prefault.Samples.LlamaCpp;

string why = "the sample uses the linux-x64 build get-llama.sh fetches";
if (!OperatingSystem.IsLinux() || !LlamaNative.TryLoad(out why))
{
    Console.WriteLine($"llama.cpp is not available, so there is nothing to show: {why}");
    return 0;
}

using ILoggerFactory loggerFactory = LoggerFactory.Create(b => b.AddSimpleConsole(o => o.SingleLine = true).SetMinimumLevel(LogLevel.Information));
ILogger log = loggerFactory.CreateLogger("host");

(string path, TinyLlamaModel.WeightType type, long mib) = (string.Empty, TinyLlamaModel.WeightType.Q4_0, 256L);
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--type":
            type = args[++i] == "f32" ? TinyLlamaModel.WeightType.F32 : TinyLlamaModel.WeightType.Q4_0;
            break;
        case "--mib":
            mib = long.Parse(args[++i], CultureInfo.InvariantCulture);
            break;
        default:
            path = args[i];
            break;
    }
}

if (path.Length == 0)
{
    path = Path.Combine(Path.GetTempPath(), $"sharpi-llama-{type.ToString().ToLowerInvariant()}.gguf");
    int layers = TinyLlamaModel.LayersFor(mib << 20, type);
    TinyLlamaModel.Write(path, layers, type);
}

Console.WriteLine($"llama.cpp      {LlamaNative.LibraryPath}");
Console.WriteLine($"model          {path} ({new FileInfo(path).Length >> 20} MiB)");

// A. The plain host: other init (a tokenizer, a server's sockets, a second model), then llama.cpp's load from a cold cache.
PageCache.Evict(path);
using (Loaded plain = await Loaded.LoadAsync(path, prefault: false, log))
{
    Console.WriteLine($"A. no prefault  {plain}");
}

// B. The same host with MmapPrefault.Start over the file (through the library's own read-only view) begun before its
//    other init: the disk reads overlap that work, and llama.cpp's load then finds the pages cached.
PageCache.Evict(path);
using Loaded host = await Loaded.LoadAsync(path, prefault: true, log);
Console.WriteLine($"B. Start first   {host}");

// C. llama.cpp's own mappings of the file, found from /proc/self/maps, and their residency; then per tensor.
IReadOnlyList<PrefaultRegion> mappings = NativeMappings.OfFile(path);
ResidencyInfo[] perMapping = Residency.MeasureEach(mappings);
Console.WriteLine($"C. llama.cpp maps {mappings.Count} range(s) of the file:");
for (int i = 0; i < mappings.Count; i++)
{
    Console.WriteLine($"     0x{mappings[i].Address:x} {mappings[i].Length >> 20,6} MiB, {perMapping[i].Percent:F0}% resident, {ProcStatus.FilePmdMappedBytes(mappings[i].Address) >> 20} MiB of it mapped with huge pages");
}

TensorIndex index = TensorIndex.Read(path);
IReadOnlyList<PrefaultRegion> tensorRegions = NativeMappings.OfTensors(index);
long tensorBytes = index.Tensors.Sum(t => t.Length);
Console.WriteLine($"   tensors mapped: {tensorRegions.Select(r => r.Name).Distinct().Count()} of {index.Tensors.Count} ({tensorRegions.Sum(r => r.Length) >> 20} of {tensorBytes >> 20} MiB), {Residency.Measure(tensorRegions).Percent:F0}% resident");

// Which tensors the CPU backend repacked into its CPU_REPACK buffer (a copy: the mapping is no longer read for them).
string[] repacked = [.. Regex.Matches(host.LoadLog, @"repack tensor (\S+) with").Select(m => m.Groups[1].Value)];
var readInPlace = new TensorSelection(include: ["*"], exclude: repacked);
IReadOnlyList<PrefaultRegion> inPlace = NativeMappings.OfTensors(index, readInPlace);
Console.WriteLine($"   read in place from the mapping: {inPlace.Count} region(s), {inPlace.Sum(r => r.Length) >> 20} MiB; repacked into llama.cpp's own buffer: {repacked.Length} tensors");

// D. Lock what llama.cpp reads in place, so memory pressure cannot evict it between requests (RLIMIT_MEMLOCK permitting).
using (LockLease lease = MmapLock.Lock(inPlace, LockOptions.Default with { Label = "llama.cpp in-place tensors", Logger = log }))
{
    Console.WriteLine(lease.IsFullyLocked
        ? $"D. locked {lease.LockedBytes >> 20} MiB of in-place tensors"
        : $"D. lock skipped or partial: {lease.LockedBytes >> 20} of {lease.RequestedBytes >> 20} MiB locked ({lease.Decision}{(lease.Failures.Count > 0 ? "; " + lease.Failures[0] : string.Empty)}); raise ulimit -l or run with CAP_IPC_LOCK");
}

// E. The repacked tensors' pages stay mapped and resident after the copy: give them back. The mapping stays valid.
if (repacked.Length == 0)
{
    Console.WriteLine("E. llama.cpp repacked no tensor (F32 weights are read in place): nothing to give back; --type q4_0 shows it");
}
else
{
    IReadOnlyList<PrefaultRegion> copied = NativeMappings.OfTensors(index, new TensorSelection(include: repacked));
    long before = ProcStatus.RssFileBytes();
    ReclaimResult reclaim = MmapReclaim.Release(copied, ReclaimOptions.Default with { Logger = log });
    long after = ProcStatus.RssFileBytes();
    double third = host.DecodeSeconds(3);
    Console.WriteLine($"E. released {reclaim.BytesReleased >> 20} of {copied.Sum(r => r.Length) >> 20} MiB of repacked tensors' pages: file RSS {before >> 20} -> {after >> 20} MiB; next token {third * 1000:F1} ms");
}

return 0;

/// <summary>A model and a context loaded the way a host does it, with the times it took.</summary>
internal sealed class Loaded : IDisposable
{
    private readonly nint _model;
    private readonly nint _context;

    private Loaded(nint model, nint context, string loadLog)
    {
        (_model, _context, LoadLog) = (model, context, loadLog);
    }

    internal string LoadLog { get; }

    internal double InitAndLoad { get; private set; }

    internal double Load { get; private set; }

    internal double CachedAfterLoad { get; private set; }

    internal long HugeMapped { get; private set; }

    internal double First { get; private set; }

    internal long FirstMajorFaults { get; private set; }

    internal long FirstMinorFaults { get; private set; }

    internal double Second { get; private set; }

    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    internal static async Task<Loaded> LoadAsync(string path, bool prefault, ILogger log)
    {
        long started = Stopwatch.GetTimestamp();
        MappedModel? view = null;
        PrefaultHandle? handle = null;
        if (prefault)
        {
            view = MappedModel.OpenFile(path);
            handle = MmapPrefault.Start([view.FileRegion(path)], PrefaultOptions.Default with
            {
                Label = Path.GetFileName(path),
                Logger = log,
                MaxDegreeOfParallelism = Math.Max(1, Environment.ProcessorCount - 1), // a core for the init work
            });
        }

        OtherInitWork();
        long loadStarted = Stopwatch.GetTimestamp();
        LlamaNative.TakeLog();
        nint model = LlamaNative.LoadModel(path, LlamaNative.ModelParameters(LlamaNative.LoadMode.Mmap));
        double load = Seconds(loadStarted);
        double initAndLoad = Seconds(started);
        double cachedAfterLoad = Residency.OfFile(path).Percent;
        string loadLog = LlamaNative.TakeLog();
        if (handle is not null)
        {
            await handle.Completion;
            await handle.DisposeAsync();
            view!.Dispose();
        }

        // Only llama.cpp's mapping is left (the library's view is closed): how much of it the kernel maps 2 MiB at a time.
        long hugeMapped = NativeMappings.OfFile(path).Sum(r => ProcStatus.FilePmdMappedBytes(r.Address));

        if (model == 0)
        {
            throw new InvalidOperationException($"llama.cpp did not load {path}:\n{loadLog}");
        }

        nint context = LlamaNative.InitFromModel(model, LlamaNative.ContextParameters(64));
        if (context == 0)
        {
            LlamaNative.ModelFree(model);
            throw new InvalidOperationException($"llama.cpp made no context for {path}:\n{LlamaNative.TakeLog()}");
        }

        var loaded = new Loaded(model, context, loadLog) { InitAndLoad = initAndLoad, Load = load, CachedAfterLoad = cachedAfterLoad, HugeMapped = hugeMapped };
        (long major, long minor) = ProcStatus.Faults();
        loaded.First = loaded.DecodeSeconds(TinyLlamaModel.Bos);
        (long majorAfter, long minorAfter) = ProcStatus.Faults();
        (loaded.FirstMajorFaults, loaded.FirstMinorFaults) = (majorAfter - major, minorAfter - minor);
        loaded.Second = loaded.DecodeSeconds(10);
        return loaded;
    }

    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    internal double DecodeSeconds(int token)
    {
        long started = Stopwatch.GetTimestamp();
        int status = LlamaNative.DecodeOne(_context, token);
        double seconds = Seconds(started);
        return status == 0 ? seconds : throw new InvalidOperationException($"llama_decode returned {status}:\n{LlamaNative.TakeLog()}");
    }

    public override string ToString() =>
        $"init+load {InitAndLoad:F3} s (load {Load:F3} s, file {CachedAfterLoad:F0}% cached after it, {HugeMapped >> 20} MiB mapped with huge pages); first token {First * 1000:F1} ms ({FirstMajorFaults} major, {FirstMinorFaults} minor faults), second {Second * 1000:F1} ms";

    public void Dispose()
    {
        if (OperatingSystem.IsLinux())
        {
            LlamaNative.Free(_context);
            LlamaNative.ModelFree(_model);
        }
    }

    // Stands in for the host's other init: 300 ms of work on one core while the prefault reads on the others.
    private static void OtherInitWork()
    {
        long started = Stopwatch.GetTimestamp();
        double sum = 0;
        while (Seconds(started) < 0.3)
        {
            sum += Math.Sqrt(sum + 1);
        }

        GC.KeepAlive(sum);
    }

    private static double Seconds(long started) => Stopwatch.GetElapsedTime(started).TotalSeconds;
}

/// <summary>The process's resident file-backed memory, from /proc/self/status.</summary>
internal static class ProcStatus
{
    internal static long RssFileBytes()
    {
        foreach (string line in File.ReadLines("/proc/self/status"))
        {
            if (line.StartsWith("RssFile:", StringComparison.Ordinal))
            {
                return long.Parse(line.AsSpan(8).Trim().TrimEnd("kB").Trim(), CultureInfo.InvariantCulture) * 1024;
            }
        }

        return 0;
    }

    /// <summary>FilePmdMapped of the /proc/self/smaps entry that holds <paramref name="address"/>: file pages mapped 2 MiB at a time.</summary>
    internal static long FilePmdMappedBytes(nint address)
    {
        bool inside = false;
        foreach (string line in File.ReadLines("/proc/self/smaps"))
        {
            int dash = line.IndexOf('-', StringComparison.Ordinal);
            int space = line.IndexOf(' ', StringComparison.Ordinal);
            if (dash > 0 && space > dash && ulong.TryParse(line.AsSpan(0, dash), NumberStyles.HexNumber, CultureInfo.InvariantCulture, out ulong start)
                && ulong.TryParse(line.AsSpan(dash + 1, space - dash - 1), NumberStyles.HexNumber, CultureInfo.InvariantCulture, out ulong end))
            {
                inside = (ulong)address >= start && (ulong)address < end;
            }
            else if (inside && line.StartsWith("FilePmdMapped:", StringComparison.Ordinal))
            {
                return long.Parse(line.AsSpan(14).Trim().TrimEnd("kB").Trim(), CultureInfo.InvariantCulture) * 1024;
            }
        }

        return 0;
    }

    /// <summary>The process's major and minor page faults so far (fields 12 and 10 of /proc/self/stat).</summary>
    internal static (long Major, long Minor) Faults()
    {
        string stat = File.ReadAllText("/proc/self/stat");
        string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        return (long.Parse(fields[9], CultureInfo.InvariantCulture), long.Parse(fields[7], CultureInfo.InvariantCulture));
    }
}
