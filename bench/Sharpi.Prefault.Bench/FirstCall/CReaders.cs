using System.Diagnostics;
using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The C baseline the library is held to in a fresh process: Native/reader.c, compiled at run time with the machine's
/// <c>cc</c> (or <c>gcc</c>) and run once per sample, each mode a way to bring a whole file in with nothing of a
/// runtime or the library in it. Never committed as a binary; without a compiler the readers are skipped, and the
/// output says so.
/// </summary>
internal sealed class CReaders
{
    internal const string Populate = "populate";
    internal const string Direct = "direct";
    internal const string MapPopulate = "map-populate";
    internal const string WillNeed = "willneed";

    internal static readonly string[] All = [Populate, Direct, MapPopulate, WillNeed];

    private const string SourceName = "reader.c";

    private readonly string _executable;

    private CReaders(string executable, string compiler)
    {
        _executable = executable;
        Compiler = compiler;
    }

    /// <summary>The compiler that built the reader, for the notes.</summary>
    internal string Compiler { get; }

    /// <summary>The row a mode's samples show under.</summary>
    internal static string RowName(string mode) => "c-" + mode;

    internal static string Describe(string mode) => mode switch
    {
        Populate => "C: mmap, MADV_HUGEPAGE, MADV_POPULATE_READ on 2 threads, 32 MiB chunks (what issue 25 measured)",
        Direct => "C: O_DIRECT, 2 x 32 MiB reads in flight into reused, pre-faulted 2 MiB-page buffers",
        MapPopulate => "C: mmap(MAP_POPULATE) on one thread (how llama.cpp loads)",
        WillNeed => "C: mmap, MADV_WILLNEED in the device's read-ahead windows (4 KiB folios), MADV_POPULATE_READ on 2 threads",
        _ => mode,
    };

    /// <summary>Whether the mode leaves the file in the page cache and mapped, as a host's first call does (O_DIRECT leaves nothing there).</summary>
    internal static bool Caches(string mode) => mode != Direct;

    /// <summary>
    /// Compiles the reader into <paramref name="directory"/>; null with the reason where there is no C compiler or
    /// the compile fails (the command then runs without the C rows and says why).
    /// </summary>
    internal static CReaders? Build(string directory, ProgressLine progress, out string? why)
    {
        string source = Path.Combine(AppContext.BaseDirectory, "Native", SourceName);
        if (!File.Exists(source))
        {
            why = $"the C readers were skipped: {source} is missing from the bench's output (build the bench again)";
            return null;
        }

        string? compiler = ExternalTool.Find("cc") ?? ExternalTool.Find("gcc");
        if (compiler is null)
        {
            why = "the C readers were skipped: no C compiler (cc or gcc) on PATH; `apt-get install gcc` to compare with them";
            return null;
        }

        Directory.CreateDirectory(directory);
        string executable = Path.Combine(directory, "reader");
        progress.Begin($"compiling {SourceName} with {compiler}");
        if (!ExternalTool.TryRun(compiler, out string output, out string error, "-O2", "-pthread", "-o", executable, source))
        {
            why = $"the C readers were skipped: `{compiler} -O2 -pthread {source}` failed: {(error.Length > 0 ? error : output).Trim()}";
            return null;
        }

        why = null;
        return new CReaders(executable, compiler);
    }

    /// <summary>
    /// Runs <paramref name="mode"/> over <paramref name="path"/> in a fresh process. The <c>willneed</c> mode asks in
    /// the windows the library uses: the larger of the device's largest request and its read-ahead, 128 KiB-8 MiB.
    /// </summary>
    internal FreshSample Run(string mode, string path)
    {
        long window = ReadAheadWindow(path);
        var start = new ProcessStartInfo(_executable, [mode, path, window.ToString(CultureInfo.InvariantCulture)])
        {
            UseShellExecute = false,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        long started = Stopwatch.GetTimestamp();
        using Process process = Process.Start(start) ?? throw new BenchException($"Could not start {_executable}.");
        Task<string> errors = process.StandardError.ReadToEndAsync();
        string output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        double processMs = Stopwatch.GetElapsedTime(started).TotalMilliseconds;
        if (process.ExitCode != 0)
        {
            throw new BenchException($"The C reader ({mode}) exited with {process.ExitCode}: {output}{errors.Result}".Trim());
        }

        string? line = output.Split('\n').FirstOrDefault(static l => l.StartsWith("reader ", StringComparison.Ordinal))
            ?? throw new BenchException($"The C reader ({mode}) printed no 'reader' line: {output}{errors.Result}".Trim());
        Dictionary<string, string> values = KeyValueLine.Parse(line, lastKey: "method");
        return new FreshSample(RowName(mode), KeyValueLine.Number(values, "load_ms"), KeyValueLine.Number(values, "cpu_ms"), processMs,
            values.GetValueOrDefault("method", "?"))
        {
            LeavesFileMapped = Caches(mode),
        };
    }

    private static long ReadAheadWindow(string path)
    {
        BlockDevice device = BlockDevice.Of(path);
        long readAhead = (device.ReadAheadKb ?? 0) * 1024L;
        long maxRequest = (device.MaxSectorsKb ?? 0) * 1024L;
        return Math.Clamp(Math.Max(readAhead, maxRequest), 128 * 1024, 8 * 1024 * 1024);
    }
}

/// <summary>
/// One fresh process's load of the file: a host's map and first <c>Run</c> (<see cref="Host"/> holds the rest of its
/// line) or a C reader's open to last byte; its CPU time and its start-to-exit time.
/// </summary>
internal sealed record FreshSample(string Row, double LoadMs, double CpuMs, double ProcessMs, string Method)
{
    /// <summary>The host's own line, for a .NET host; null for a C reader.</summary>
    internal FirstCallSample? Host { get; init; }

    /// <summary>A cold sample's wait for free page reporting to settle after its eviction (<c>--settle</c>), before it started.</summary>
    internal double? SettleSeconds { get; init; }

    /// <summary>Whether the load left the file in the page cache and mapped, as a host's first call does (not O_DIRECT's).</summary>
    internal bool LeavesFileMapped { get; init; }

    internal static FreshSample Of(FirstCallSample host) => new(host.Host, host.LoadMs, host.CpuMs, host.ProcessMs, host.Method) { Host = host, LeavesFileMapped = true };
}
