using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.IO.MemoryMappedFiles;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// <c>firstcall</c>: the fixed cost of the engine's first <see cref="MmapPrefault.Run(PrefaultRegion[], PrefaultOptions?, CancellationToken)"/>,
/// alone. Each sample is a fresh process (bench/Sharpi.Prefault.FirstCall, published as each kind of host) that maps a
/// warm file, times the first call and a second one, and counts what the JIT compiled during the first. Warm means as
/// the library leaves a file: evicted, then read in by <c>Run</c> (<c>--warm read</c>: by read(2) instead, which can
/// leave smaller page-cache folios and so a slower page-table fill). Medians over the samples, hosts interleaved.
/// </summary>
internal sealed class FirstCallCommand
{
    private readonly Option<long> _size = CommonOptions.SizeOption("--size", 1L << 30, "Size of the generated file (random bytes), e.g. 1G. Ignored with --file.");

    private readonly Option<string?> _file = new("--file") { Description = "An existing file to map instead of a generated one; never changed." };

    private readonly Option<string> _dir = new("--dir")
    {
        Description = "Directory of the generated file.",
        DefaultValueFactory = _ => WeightsFile.DefaultDirectory,
    };

    private readonly Option<int> _samples = new("--samples")
    {
        Description = "Fresh processes per host; medians are reported, with min-max.",
        DefaultValueFactory = _ => 11,
    };

    private readonly Option<string> _hosts = new("--hosts")
    {
        Description = $"Hosts to run, comma-separated: {string.Join(",", FirstCallHosts.All)}.",
        DefaultValueFactory = _ => string.Join(",", FirstCallHosts.All),
    };

    private readonly Option<string> _framework = new("--framework")
    {
        Description = "Target framework the hosts are published for.",
        DefaultValueFactory = _ => "net10.0",
    };

    private readonly Option<string> _hostsDir = new("--hosts-dir")
    {
        Description = "Where the hosts are published (and the package host's feed and package cache).",
        DefaultValueFactory = _ => Path.Combine(Path.GetTempPath(), "sharpi-prefault-firstcall"),
    };

    private readonly Option<bool> _reuseHosts = new("--reuse-hosts")
    {
        Description = "Run the hosts already published in --hosts-dir instead of publishing them again (after a library change, publish again).",
    };

    private readonly Option<string> _warm = new("--warm")
    {
        Description = "How the file is made warm: prefault (evicted, then read in by MmapPrefault.Run, as the library leaves it) or read (read(2) through the page cache).",
        DefaultValueFactory = _ => "prefault",
    };

    internal static Command Create()
    {
        var self = new FirstCallCommand();
        var command = new Command("firstcall",
            "The first MmapPrefault.Run in a fresh process over a warm file, per host (JIT, ReadyToRun, NativeAOT, installed package): " +
            "first and second call, methods the JIT compiled during the first.");
        self._warm.AcceptOnlyFromAmong("prefault", "read");
        foreach (Option option in (Option[])[self._size, self._file, self._dir, self._samples, self._hosts, self._framework, self._hostsDir, self._reuseHosts, self._warm])
        {
            command.Options.Add(option);
        }

        command.SetAction(self.Invoke);
        return command;
    }

    private int Invoke(ParseResult parse)
    {
        if (!OperatingSystem.IsLinux())
        {
            Console.Error.WriteLine("firstcall needs Linux: it evicts the page cache with posix_fadvise and publishes linux-x64 hosts.");
            return 2;
        }

        using var progress = new ProgressLine();
        try
        {
            return Run(parse, progress);
        }
        catch (BenchException e)
        {
            progress.Clear();
            Console.Error.WriteLine(e.Message);
            return 1;
        }
    }

    [SupportedOSPlatform("linux")]
    private int Run(ParseResult parse, ProgressLine progress)
    {
        int samples = parse.GetValue(_samples);
        if (samples < 1)
        {
            throw new BenchException("--samples must be at least 1.");
        }

        string[] kinds = CommaList.Parse(parse.GetValue(_hosts), static k => FirstCallHosts.All.Contains(k)
            ? k
            : throw new BenchException($"--hosts: unknown host '{k}'; use {string.Join(",", FirstCallHosts.All)}."));
        string hostsDir = Path.GetFullPath(parse.GetValue(_hostsDir)!);
        string repository = FirstCallHosts.FindRepository();
        var hosts = new Dictionary<string, string>();
        foreach (string kind in kinds)
        {
            hosts[kind] = FirstCallHosts.Publish(repository, hostsDir, kind, parse.GetValue(_framework)!, parse.GetValue(_reuseHosts), progress);
        }

        WeightsFile file = parse.GetValue(_file) is { } path
            ? WeightsFile.Existing(path)
            : WeightsFile.OpenOrCreate(parse.GetValue(_dir)!, parse.GetValue(_size), progress);
        bool byPrefault = parse.GetValue(_warm) == "prefault";
        MakeWarm(file, byPrefault, progress);

        string loadBefore = LoadAverage();
        var results = kinds.ToDictionary(k => k, _ => new List<FirstCallSample>());
        int rewarmed = 0;
        for (int i = 0; i < samples; i++)
        {
            // Interleaved, each round starting at another host: drift on a shared machine spreads over every host alike.
            for (int j = 0; j < kinds.Length; j++)
            {
                string kind = kinds[(i + j) % kinds.Length];
                progress.Begin($"sample {i + 1}/{samples}: {kind}");
                FirstCallSample sample = RunHost(kind, hosts[kind], file.Path);
                if (sample.ResidentBefore < file.Length)
                {
                    rewarmed++; // something evicted the file: that sample measured a read, not the fixed cost
                    MakeWarm(file, byPrefault, progress);
                    sample = RunHost(kind, hosts[kind], file.Path);
                }

                results[kind].Add(sample);
            }
        }

        progress.Clear();
        Print(file, byPrefault, samples, kinds, results, loadBefore, rewarmed);
        return 0;
    }

    [SupportedOSPlatform("linux")]
    private static void MakeWarm(WeightsFile file, bool byPrefault, ProgressLine progress)
    {
        progress.Begin(byPrefault ? "warming the file: evict, then MmapPrefault.Run" : "warming the file: read(2)");
        if (!byPrefault)
        {
            CacheControl.Establish(file, CacheState.Warm);
            return;
        }

        PageCache.Evict(file.Path);
        using var mapped = MemoryMappedFile.CreateFromFile(file.Path, FileMode.Open, null, 0, MemoryMappedFileAccess.Read);
        using MemoryMappedViewAccessor view = mapped.CreateViewAccessor(0, 0, MemoryMappedFileAccess.Read);
        PrefaultResult result = MmapPrefault.Run([PrefaultRegion.FromView(view, "weights")], new PrefaultOptions { RamGate = RamGate.Always });
        double percent = Residency.OfFile(file.Path).Percent;
        if (percent < 100)
        {
            throw new BenchException($"Could not make '{file.Path}' warm: {percent:0.0}% resident after MmapPrefault.Run ({result.Reason}). Use a smaller --size.");
        }
    }

    private static FirstCallSample RunHost(string kind, string executable, string path)
    {
        var start = new ProcessStartInfo(executable, [path]) { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        long started = Stopwatch.GetTimestamp();
        using Process process = Process.Start(start) ?? throw new BenchException($"Could not start {executable}.");
        Task<string> errors = process.StandardError.ReadToEndAsync();
        string output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        double processMs = Stopwatch.GetElapsedTime(started).TotalMilliseconds;
        if (process.ExitCode != 0)
        {
            throw new BenchException($"The {kind} host exited with {process.ExitCode}:{Environment.NewLine}{output}{errors.Result}");
        }

        return FirstCallSample.Parse(kind, output, processMs)
            ?? throw new BenchException($"The {kind} host printed no 'firstcall' line:{Environment.NewLine}{output}{errors.Result}");
    }

    private static void Print(WeightsFile file, bool byPrefault, int samples, string[] kinds, Dictionary<string, List<FirstCallSample>> results,
        string loadBefore, int rewarmed)
    {
        Console.Out.WriteLine();
        Console.Out.WriteLine($"First call of MmapPrefault.Run in a fresh process: {file.Path} ({Sizes.Format(file.Length)}), warm " +
            (byPrefault ? "(read in by MmapPrefault.Run after an eviction)" : "(read(2) through the page cache)") +
            $", {samples} fresh processes per host, interleaved; {Environment.ProcessorCount} CPUs, load average {loadBefore} before, {LoadAverage()} after.");
        if (rewarmed > 0)
        {
            Console.Out.WriteLine($"  {rewarmed} sample(s) found the file no longer resident (evicted by other work): warmed again and run again.");
        }

        Console.Out.WriteLine();
        Console.Out.WriteLine($"{"host",-8} {"first call ms",-22} {"second ms",-20} {"CPU ms",-22} {"JIT methods",11} {"JIT ms",8} {"threads",7} {"method",-9} {"process ms",10}");
        foreach (string kind in kinds)
        {
            List<FirstCallSample> s = results[kind];
            Console.Out.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"{kind,-8} {Spread(s.Select(x => x.FirstMs)),-22} {Spread(s.Select(x => x.SecondMs)),-20} {Spread(s.Select(x => x.CpuMs)),-22} {Statistics.Median(s.Select(x => x.JitMethods)),11} " +
                $"{Statistics.Median(s.Select(x => x.JitMs)),8:0.0} {Statistics.Median(s.Select(x => (long)x.Threads)),7} {s[0].Method,-9} {Statistics.Median(s.Select(x => x.ProcessMs)),10:0}"));
        }

        Console.Out.WriteLine();
        foreach (string kind in kinds)
        {
            Console.Out.WriteLine($"  {kind}: {FirstCallHosts.Describe(kind)}");
        }

        Console.Out.WriteLine("  first call: Stopwatch around the process's first MmapPrefault.Run; second: the next one in the same process; " +
            "CPU ms: the process's CPU time (every thread, user and kernel) during the first call, steadier than wall time on a busy machine; " +
            "JIT methods/ms: System.Runtime.JitInfo deltas around the first call (0 under NativeAOT); process ms: start to exit.");
    }

    private static string Spread(IEnumerable<double> values)
    {
        double[] v = [.. values];
        return string.Create(CultureInfo.InvariantCulture, $"{Statistics.Median(v):0.00} ({v.Min():0.00}-{v.Max():0.00})");
    }

    private static string LoadAverage()
    {
        try
        {
            return string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3));
        }
        catch (IOException)
        {
            return "unknown";
        }
    }
}
