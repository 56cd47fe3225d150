using System.CommandLine;
using System.IO.MemoryMappedFiles;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// <c>firstcall</c>: the engine's first <see cref="MmapPrefault.Run(PrefaultRegion[], PrefaultOptions?, CancellationToken)"/>
/// as an engine makes it, in a fresh process. Each sample is a fresh process (bench/Sharpi.Prefault.FirstCall, published
/// as each kind of host) that maps the file and times the first call and a second one, counting what the JIT compiled
/// during the first. Warm (the fixed cost alone): the file as the library leaves it, evicted, then read in by
/// <c>Run</c> (<c>--warm read</c>: by read(2) instead, which can leave smaller page-cache folios and so a slower
/// page-table fill). Cold (<c>--cache cold</c>): the file evicted (and, where free pages are reported, settled) before
/// each sample, the host's map and first call against C readers (<see cref="CReaders"/>) run the same way, once per
/// read-ahead pass, and on each <c>--device</c> (a RAM-backed or loop device the bench makes and removes, as
/// <c>coldstart</c> does). Medians over the samples, hosts and readers interleaved.
/// </summary>
internal sealed class FirstCallCommand
{
    /// <summary>The issue's goal: a cold load in a fresh process at least this fraction of the best C reader's speed.</summary>
    internal const double Goal = 0.95;

    private readonly Option<long> _size = CommonOptions.SizeOption("--size", 1L << 30, "Size of the generated file (random bytes), e.g. 1G. Ignored with --file.");

    private readonly Option<string?> _file = new("--file") { Description = "An existing file to map instead of a generated one; never changed." };

    private readonly Option<string> _dir = BenchCommand.Defaulted("--dir", WeightsFile.DefaultDirectory,
        "Directory of the generated file (a disk filesystem: tmpfs cannot be made cold); --device makes its devices in it.");

    private readonly Option<bool> _cleanup = new("--cleanup")
    {
        Description = "Delete the generated file at the end (it is kept and reused otherwise; a --file is never deleted). The hosts stay in --hosts-dir for --reuse-hosts.",
    };

    private readonly Option<int> _samples = BenchCommand.Defaulted("--samples", 11, "Fresh processes per host (and C reader) and cache state; medians are reported, with min-max.");

    private readonly Option<string> _hosts = BenchCommand.Defaulted("--hosts", string.Join(",", FirstCallHosts.All),
        $"Hosts to run, comma-separated: {string.Join(",", FirstCallHosts.All)}.");

    private readonly FreshHostOptions _hostOptions = new();

    private readonly Option<string> _warm = BenchCommand.Defaulted("--warm", "prefault",
        "How the file is made warm: prefault (evicted, then read in by MmapPrefault.Run, as the library leaves it) or read (read(2) through the page cache).");

    private readonly Option<string> _cache = BenchCommand.Defaulted("--cache", "warm",
        "Comma-separated cache states: warm (the fixed cost alone) and cold (evicted before each sample, against the C readers).");

    private readonly Option<string> _readers = BenchCommand.Defaulted("--readers", string.Join(",", CReaders.All),
        $"C readers run beside the hosts in cold samples, comma-separated: {string.Join(",", CReaders.All)}, or none.");

    private readonly Option<string?> _readAhead = ReadAheadPasses.CreateOption();

    private readonly Option<string> _device = DeviceSpec.CreateOption();

    private readonly Option<string> _settle = ReportingSettle.CreateOption();

    private readonly Option<string> _freePageReporting = CommonOptions.FreePageReportingOption();

    internal static Command Create()
    {
        var self = new FirstCallCommand();
        var command = new Command("firstcall",
            "The first MmapPrefault.Run in a fresh process, per host (JIT, ReadyToRun, NativeAOT, installed package): over a warm file " +
            "(the fixed cost: first and second call, methods the JIT compiled) and a cold one (map + first call against C readers).");
        self._warm.AcceptOnlyFromAmong("prefault", "read");
        self._freePageReporting.AcceptOnlyFromAmong("keep", "suspend");
        return BenchCommand.Configure(command, self.Invoke, [self._size, self._file, self._dir, self._cleanup, self._samples, self._hosts, .. self._hostOptions.All,
            self._warm, self._cache, self._readers, self._readAhead, self._device, self._settle, self._freePageReporting]);
    }

    private int Invoke(ParseResult parse)
    {
        if (!BenchCommand.RunsHere("firstcall", "it evicts the page cache with posix_fadvise and publishes linux-x64 hosts."))
        {
            return 2;
        }

        using var progress = new ProgressLine();
        try
        {
            return Run(parse, progress);
        }
        catch (Exception) when (SignalExit.IsStopping)
        {
            SignalExit.Park();
            return 1;
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
        CacheState[] caches = CacheControl.ParseSome(parse.GetValue(_cache), "warm, cold or warm,cold");

        string readersValue = parse.GetValue(_readers)!;
        string[] modes = readersValue.Trim() == "none" ? [] : CommaList.Parse(readersValue, static m => CReaders.All.Contains(m)
            ? m
            : throw new BenchException($"--readers: unknown reader '{m}'; use {string.Join(",", CReaders.All)} or none."));
        int[] readAheads = ReadAheadPasses.Parse(parse.GetValue(_readAhead));
        List<DeviceSpec> devices = DeviceSpec.Parse(parse.GetValue(_device)!);
        bool cold = caches.Contains(CacheState.Cold);
        bool warm = caches.Contains(CacheState.Warm);

        Dictionary<string, string> hosts = _hostOptions.Publish(parse, kinds, progress);
        var notes = new List<string>();
        CReaders? readers = null;
        if (cold && modes.Length > 0)
        {
            readers = CReaders.Build(Path.Combine(_hostOptions.Directory(parse), "c-reader"), progress, out string? why);
            string note = readers is null ? why! : $"C readers compiled from bench/Sharpi.Prefault.Bench/Native/reader.c with {readers.Compiler} -O2.";
            progress.Note(note);
            notes.Add(note);
        }

        WeightsFile file = parse.GetValue(_file) is { } path
            ? WeightsFile.Existing(path)
            : WeightsFile.OpenOrCreate(parse.GetValue(_dir)!, parse.GetValue(_size), progress);
        bool byPrefault = parse.GetValue(_warm) == "prefault";
        bool named = devices.Any(static d => !d.IsMain);
        string loadBefore = FirstCallReport.LoadAverage();
        var passes = new List<FirstCallPass>();
        string conditions;
        ReportingSettle? settle;
        using (FreePageReporting.Suspension? reporting = FreePageReporting.Suspend(parse.GetValue(_freePageReporting) == "suspend", notes, progress))
        {
            bool reportingOn = FreePageReporting.ReportsDuring(reporting);
            settle = cold ? ReportingSettle.Create(parse.GetValue(_settle)!, reportingOn, file.Length, notes, progress) : null;
            conditions = reportingOn ? (settle is null ? "free page reporting on, not settled" : "free page reporting on, settled")
                : reporting is not null ? "free page reporting suspended" : string.Empty;
            foreach ((DeviceSpec device, WeightsFile onDevice, int? readAheadBeforeAttach) in ScratchDevice.Each(devices, file, parse.GetValue(_dir)!, progress, notes))
            {
                var run = new FirstCallRun(onDevice, kinds, hosts, readers, modes, byPrefault, samples, progress, named ? device.Name : null);
                foreach (int? readAheadKb in ReadAheadPasses.Each(onDevice.Path, readAheads, notes, progress, readAheadBeforeAttach))
                {
                    passes.Add(run.RunPass(readAheadKb, warm, cold, settle));
                }
            }
        }

        if (settle is not null)
        {
            notes.Add(settle.Summary());
            if (conditions == "free page reporting on, settled")
            {
                // Only now known: whether every wait reached its floor.
                conditions = "free page reporting on, " + settle.Condition();
            }
        }

        if (passes.Count == 0)
        {
            throw ScratchDevice.NoPassRan(notes);
        }

        progress.Clear();
        FirstCallReport.Print(file, byPrefault, samples, kinds, passes, notes, conditions, loadBefore);
        if (parse.GetValue(_cleanup) && file.Generated)
        {
            File.Delete(file.Path);
            progress.Note($"Deleted {file.Path}.");
        }

        return 0;
    }

    /// <summary>Makes the file warm as the library leaves it (evicted, then <c>Run</c>) or by read(2).</summary>
    [SupportedOSPlatform("linux")]
    internal static void MakeWarm(WeightsFile file, bool byPrefault, ProgressLine progress)
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
}
