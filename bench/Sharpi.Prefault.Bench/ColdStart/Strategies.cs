using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Bench;

/// <summary>What one row took: the strategy itself, then the first pass over what it produced.</summary>
internal readonly record struct StrategyTimes(double Seconds, double FirstPassSeconds, string? Method = null, FaultCounts FirstPassFaults = default,
    double? PmdMappedPercent = null)
{
    /// <summary>The row's warm request, timed beside its first on the same memory: coldstart, the median of the request run three more times right after it; engine, the second inference.</summary>
    internal double? WarmPassSeconds { get; init; }

    /// <summary>A fresh-process row's host kind: the row's time is that process's map + first call, and it ran no request.</summary>
    internal string? Host { get; init; }

    /// <inheritdoc cref="ResultRow.Ran"/>
    internal string? Ran { get; init; }

    internal StrategyTimes(double seconds, (double Seconds, FaultCounts Faults) firstPass, string? method)
        : this(seconds, firstPass.Seconds, method, firstPass.Faults)
    {
    }
}

/// <summary>One way to get from a file on disk to weights an engine can read.</summary>
internal abstract partial class ColdStartStrategy(string name, string description)
{
    internal string Name { get; } = name;

    internal string Description { get; } = description;

    /// <summary>The synthetic row that shows the best of the <see cref="IsLimit"/> rows per cache state.</summary>
    internal const string LimitName = "limit";

    /// <summary>Why the row cannot run on this machine, or null when it can.</summary>
    internal virtual string? Unavailable => null;

    /// <summary>A reader of the file at the device's (or, warm, the page tables') limit: a candidate for the <c>limit</c> row. It runs no request.</summary>
    internal virtual bool IsLimit => false;

    /// <summary>How the row gets the bytes in: <see cref="Direct"/>, <see cref="Mmap"/> or <see cref="Read"/> (the verdict's fastest way in per pass).</summary>
    internal virtual string Mechanism => Mmap;

    internal const string Direct = "O_DIRECT";

    internal const string Mmap = "mmap";

    internal const string Read = "read()";

    /// <summary>The mechanism of the row named <paramref name="name"/>, or null for a name that is no strategy (the <c>limit</c> row).</summary>
    internal static string? MechanismOf(string name) => All.FirstOrDefault(s => s.Name == name)?.Mechanism;

    /// <summary>Whether the row means something in <paramref name="cache"/> (the limit readers each belong to one state).</summary>
    internal virtual bool RunsIn(CacheState cache) => true;

    internal abstract StrategyTimes Execute(WeightsFile file, CacheState cache, BenchSettings settings);

    /// <summary>Every strategy, in the order the table shows them.</summary>
    internal static IReadOnlyList<ColdStartStrategy> All { get; } =
    [
        DirectReadLimit(2, hugePages: true),
        DirectReadLimit(4, hugePages: true),
        DirectReadLimit(8, hugePages: true),
        DirectReadLimit(2, hugePages: false),
        BufferedLimit(),
        PopulateLimit(),
        new Mapped("none", "map, then the request demand-faults what it reads", static (_, _, _) => default),
        new Mapped("touch-1", "map, one thread reads one byte per page, then the first pass", static (region, _, _) => TouchOneThread(region)),
        new Mapped("willneed", "map, madvise(MADV_WILLNEED) over the mapping (MmapPrefault.Run HintOnly), then the first pass",
            static (region, settings, _) => RunPrefault(region, settings.Prefault(PrefaultStrategy.HintOnly, RamGate.Always))),
        new Mapped("prefault", "map, MmapPrefault.Run with the defaults, then the first pass",
            static (region, settings, _) => RunPrefault(region, settings.Prefault(PrefaultStrategy.Auto))),
        new Mapped("prefault-touch", "map, MmapPrefault.Run with Strategy = Touch (parallel per-page touch), then the first pass",
            static (region, settings, _) => RunPrefault(region, settings.Prefault(PrefaultStrategy.Touch))),
        new Mapped("prefault-nohuge", "map, MmapPrefault.Run with IsHugePageAdviceEnabled = false (the page cache's own folio sizes), then the first pass",
            static (region, settings, _) => RunPrefault(region, settings.Prefault(PrefaultStrategy.Auto, isHugePageAdviceEnabled: false))),
        new FreshProcess(FirstCallHosts.Jit),
        new FreshProcess(FirstCallHosts.Package),
        new FreshProcess(FirstCallHosts.NativeAot),
        new BufferedRead(),
        new DirectIORead(),
        new VmTouch(),
        new CReference(),
    ];

    /// <summary>
    /// The first request over <paramref name="start"/>, then the same request three more times: those find everything
    /// the first faulted in, so their median is the row's warm request, measured in the same second as its first (this
    /// machine's speed drifts between minutes, and a warm request timed elsewhere carried that drift into x warm). One
    /// run alone spread 0.95x-1.22x around the others here even where nothing could fault (an O_DIRECT buffer).
    /// </summary>
    private static unsafe StrategyTimes WithRequests(double seconds, byte* start, BenchSettings settings, string? method)
    {
        var firstPass = FirstPass.Run(start, settings.Request, settings.FirstPassThreads);
        double[] warm = new double[WarmPasses];
        for (int i = 0; i < warm.Length; i++)
        {
            warm[i] = FirstPass.Run(start, settings.Request, settings.FirstPassThreads).Seconds;
        }

        return new StrategyTimes(seconds, firstPass, method) { WarmPassSeconds = Statistics.Median(warm) };
    }

    /// <summary>How many runs of the request after the first make a row's warm request (their median).</summary>
    internal const int WarmPasses = 3;

    private static unsafe Prepared TouchOneThread(PrefaultRegion region)
    {
        PageTouch.OneThread((byte*)region.Address, region.Length);
        return new("touch");
    }

    private static Prepared RunPrefault(PrefaultRegion region, PrefaultOptions options)
    {
        PrefaultResult result = MmapPrefault.Run([region], options);
        if (result.ReadAheadDescription.Length > 0)
        {
            ReadAheadSeen.Add(result.ReadAheadDescription);
        }

        if (result.MechanismDescription.Length > 0
            && (result.MechanismDescription.Contains("; trial of ", StringComparison.Ordinal) || !MechanismSeen.Contains(result.MechanismDescription)))
        {
            MechanismSeen.Add(result.MechanismDescription);
        }

        string method = Covered(result, "MmapPrefault.Run");
        return new(method, Ran(method, result));
    }

    /// <summary>What a mapped row's preparation did: its method, and for an MmapPrefault row what the library ran (<see cref="ResultRow.Ran"/>).</summary>
    private readonly record struct Prepared(string? Method, string? Ran = null);

    /// <summary>
    /// What the library ran for <paramref name="result"/>, without why: its method, threads and
    /// <see cref="PrefaultResult.ReadAheadDescription"/> less the clause that gives the reason for its huge-page choice
    /// (the VM that reports free pages, where the library withheld the advice or kept it beside an init; a row that
    /// turned the advice off gets no such clause). Should the library's wording of those clauses change, two rows that
    /// ran the same code get different text and the verdict only stops calling them one (it never joins others);
    /// FileStagingTests pin both clauses' start. Two rows
    /// with the same text ran the same code on the same settings: <c>prefault-nohuge</c> and <c>prefault</c> on a VM
    /// that reports free pages, where the default withholds the advice.
    /// </summary>
    internal static string Ran(string method, PrefaultResult result)
    {
        string staging = result.ReadAheadDescription;
        foreach (string reason in (ReadOnlySpan<string>)["; no huge-page advice:", "; the advice kept"])
        {
            int at = staging.IndexOf(reason, StringComparison.Ordinal);
            if (at >= 0)
            {
                staging = staging[..at];
            }
        }

        return string.Create(CultureInfo.InvariantCulture,
            $"{method}, {result.Threads} thread{(result.Threads == 1 ? string.Empty : "s")}{(staging.Length > 0 ? ", " + staging : string.Empty)}");
    }

    /// <summary>
    /// Every distinct <see cref="PrefaultResult.ReadAheadDescription"/> the in-process MmapPrefault rows got (how the
    /// file came in, and the chunks where the library chose others than the option's), for the run's notes. The rows
    /// run one after another.
    /// </summary>
    internal static SortedSet<string> ReadAheadSeen { get; } = new(StringComparer.Ordinal);

    /// <summary>
    /// Every distinct <see cref="PrefaultResult.MechanismDescription"/> the in-process MmapPrefault rows got (the
    /// mechanism that ran, the touch after it, and each candidate's cost where the run took a trial), for the run's notes.
    /// </summary>
    internal static List<string> MechanismSeen { get; } = [];

    /// <summary>
    /// The name of the method <paramref name="result"/> used, or a <see cref="BenchException"/> where it did not cover
    /// every region: a row whose prefault did not run would carry its label over figures it did not earn.
    /// </summary>
    internal static string Covered(PrefaultResult result, string call)
    {
        if (!result.HasRun || result.Failures.Count > 0)
        {
            throw new BenchException($"{call} did not cover the file: {result.Reason}" +
                (result.Failures.Count > 0 ? $"; {result.Failures[0].Message}" : string.Empty));
        }

        return PrefaultMethodNames.Of(result.Method);
    }

    /// <summary>Maps the file read-only through the library (fresh page tables), so a row pays for every fault itself.</summary>
    internal static MappedFile Map(WeightsFile file) => new(MappedModel.OpenFile(file.Path));

    /// <summary>The whole file as <see cref="MappedModel.OpenFile"/> maps it, as a region and as the first byte.</summary>
    internal sealed class MappedFile(MappedModel model) : IDisposable
    {
        internal PrefaultRegion Region { get; } = model.FileRegion(model.Path) with { Name = Path.GetFileName(model.Path) };

        internal unsafe byte* Start => (byte*)Region.Address;

        public void Dispose() => model.Dispose();
    }

    /// <summary>The mmap rows: map, run the strategy, run the request over the mapping.</summary>
    private sealed class Mapped(string name, string description, Func<PrefaultRegion, BenchSettings, WeightsFile, Prepared> prepare)
        : ColdStartStrategy(name, description)
    {
        internal override bool IsRanked => true;

        internal override unsafe StrategyTimes Execute(WeightsFile file, CacheState cache, BenchSettings settings)
        {
            using MappedFile mapped = Map(file);
            long started = Stopwatch.GetTimestamp();
            Prepared prepared = prepare(mapped.Region, settings, file);
            double seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
            double? pmdMapped = 100.0 * ProcessMemory.FilePmdMappedBytes / file.Length;
            return WithRequests(seconds, mapped.Start, settings, prepared.Method) with { PmdMappedPercent = pmdMapped, Ran = prepared.Ran };
        }
    }

    /// <summary>No mmap: read the file into an engine-owned buffer with FileStream, then the first pass over the buffer.</summary>
    private sealed class BufferedRead() : ColdStartStrategy("buffered-read",
        "no mmap: FileStream reads (16 MiB, one thread) into a native buffer, then the request over the buffer")
    {
        internal override string Mechanism => Read;

        private const int ReadSize = 16 * 1024 * 1024;

        internal override unsafe StrategyTimes Execute(WeightsFile file, CacheState cache, BenchSettings settings)
        {
            long started = Stopwatch.GetTimestamp();
            byte* buffer = (byte*)NativeMemory.Alloc((nuint)file.Length);
            try
            {
                file.ReadWhole(ReadSize, (nint)buffer);
                double seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
                return WithRequests(seconds, buffer, settings, "read");
            }
            finally
            {
                NativeMemory.Free(buffer);
            }
        }
    }

    /// <summary>No mmap, no page cache: DirectFileReader reads the file (O_DIRECT) into an aligned native buffer, then the first pass over the buffer.</summary>
    private sealed class DirectIORead() : ColdStartStrategy("direct-io",
        "no mmap: the engine's 2 MiB-page buffer allocated and faulted in, DirectFileReader (O_DIRECT, default options) into it, then the request over it")
    {
        internal override string Mechanism => Direct;

        internal override unsafe StrategyTimes Execute(WeightsFile file, CacheState cache, BenchSettings settings)
        {
            // As an engine should give it: a destination backed by 2 MiB pages, so each O_DIRECT read reaches the
            // disk as one large request (4 KiB pages cap a request at the device's segment count; docs/direct-io.md).
            // Allocated and faulted in on the row's clock, as buffered-read's buffer is: an engine that copies its
            // weights allocates that memory as it loads, and where a VM's host took freed memory back, its first touch
            // costs the host's faults the page-cache rows pay for theirs (before, faulted in ahead of the clock, the
            // row was spared them and led every pass with reporting on). The limit rows keep their buffers faulted in
            // ahead: they measure the device.
            long started = Stopwatch.GetTimestamp();
            byte* buffer = (byte*)NativeMemory.AlignedAlloc((nuint)file.Length, 2 * 1024 * 1024);
            if (OperatingSystem.IsLinux())
            {
                _ = global::Interop.Libc.Madvise(buffer, (nuint)file.Length, global::Interop.LinuxConstants.MADV_HUGEPAGE);
            }

            for (long at = 0; at < file.Length; at += Environment.SystemPageSize)
            {
                buffer[at] = 0;
            }

            try
            {
                string method;
                using (DirectFileReader reader = DirectFileReader.Open(file.Path))
                {
                    long read = reader.Read(0, (nint)buffer, file.Length);
                    if (read != file.Length)
                    {
                        throw new BenchException($"DirectFileReader read {read} of {file.Length} bytes of '{file.Path}'; was it truncated?");
                    }

                    method = reader.Mode == DirectReadMode.Direct ? "O_DIRECT" : $"buffered ({reader.FallbackReason})";
                }

                double seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
                return WithRequests(seconds, buffer, settings, method);
            }
            finally
            {
                NativeMemory.AlignedFree(buffer);
            }
        }
    }

    /// <summary>The external peer: <c>vmtouch -t FILE</c> loads the file into the page cache, then the row maps it and runs the first pass.</summary>
    private sealed class VmTouch() : ColdStartStrategy("vmtouch", "vmtouch -t FILE (external process), then map and the first pass")
    {
        private static readonly string? s_path = ExternalTool.Find("vmtouch");

        internal override string? Unavailable => s_path is null ? "vmtouch is not installed; install it with `apt-get install vmtouch` to compare with it" : null;

        internal override unsafe StrategyTimes Execute(WeightsFile file, CacheState cache, BenchSettings settings)
        {
            long started = Stopwatch.GetTimestamp();
            using (var process = Process.Start(new ProcessStartInfo(s_path!, ["-t", "-q", file.Path]) { UseShellExecute = false })!)
            {
                process.WaitForExit();
                if (process.ExitCode != 0)
                {
                    throw new BenchException($"vmtouch -t '{file.Path}' exited with {process.ExitCode}.");
                }
            }

            double seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
            using MappedFile mapped = Map(file);
            return WithRequests(seconds, mapped.Start, settings, "vmtouch -t");
        }
    }
}
