using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>
/// How one run brings its pages in, decided in one step (<see cref="Choose"/>) and only read after it: by the sweep
/// (whether the OS read-ahead hint goes first or alone, whether the touch-safety check applies) and by each chunk
/// (populate, the sampled touch after it, the staging read before it).
/// </summary>
/// <param name="Method">The method the result reports.</param>
/// <param name="HintsFirst">
/// The OS read-ahead hint over the regions before the sweep: all of a <see cref="PrefaultMethod.Hint"/> run; before a
/// touch on macOS and Windows, which honour a whole-range hint. On Linux it is capped at the read-ahead window and
/// leaves small folios behind, so a Linux touch goes straight to the sweep.
/// </param>
/// <param name="TouchesAfterPopulate">
/// Each populated chunk is sampled and its slow 2 MiB spans read whole (<see cref="TouchAfterPopulate"/>): only where a
/// host may fault the memory in (<see cref="SamplesAfterPopulate"/>), only where something had to be read (nothing
/// was, when everything was resident already, so there is no first access to pay for) and only where the touch goes
/// through the kernel (<see cref="SafeTouch.IsKernelChecked"/>: after a populate it must never be a plain load, which
/// a concurrent truncation could turn into a fatal SIGBUS). Never beside the engine's init (<c>Start</c>): there the
/// touch's reads, and the host's faults under them, are CPU the init loses.
/// </param>
/// <param name="Staging">How the file bytes under each mapping come in before a chunk's populate (<see cref="FileStaging"/>); null for nothing.</param>
/// <param name="FileRead">
/// The touch's reads where they cannot go through the kernel (Linux, <see cref="SafeTouch.IsKernelChecked"/> false):
/// file mappings read through their files, never loaded (<see cref="FileReadTouch"/>); null otherwise.
/// </param>
/// <param name="Maps">The run's snapshot of the mappings (empty where there is none), to tell what a failed page was.</param>
/// <param name="ThroughMapping">
/// Where the touch goes through the kernel, the access made through the engine's own mapping (<see cref="MappingTouch"/>:
/// a host that shadows the guest's page tables charges that access, not the kernel's read); null where memfd_create is
/// refused, or nothing is touched: the touch then reads through <see cref="SafeTouch"/>.
/// </param>
/// <param name="TouchFallback">Why the touch does not go through the mapping where it could have (memfd_create refused); empty otherwise.</param>
internal sealed record SweepMechanism(PrefaultMethod Method, bool HintsFirst, bool TouchesAfterPopulate, FileStaging? Staging,
    FileReadTouch? FileRead = null, ProcMapEntry[]? Maps = null, MappingTouch? ThroughMapping = null, string TouchFallback = "") : IDisposable
{
    /// <summary>Each chunk is populated with MADV_POPULATE_READ (else touched).</summary>
    internal bool Populates => Method == PrefaultMethod.Populate;

    /// <summary>Chunks are swept at all (not for a hint alone).</summary>
    internal bool SweepsChunks => Method != PrefaultMethod.Hint;

    /// <summary>
    /// Some of the file bytes come in through read-ahead windows (4 KiB folios, <see cref="FileStaging.WindowedBytes"/>),
    /// CPU work in the kernel for every page: where a background sweep reads them ahead of its mapping (<see cref="SweepThreads"/>).
    /// </summary>
    internal bool ReadsInWindows => Staging is { WindowedBytes: > 0 };

    /// <summary>A touch cannot fail softly: only pages that are mapped, readable and inside the file are swept (<see cref="TouchSafety"/>).</summary>
    internal bool ChecksBeforeTouch => Method == PrefaultMethod.Touch;

    /// <summary>
    /// The mechanism for <paramref name="work"/>: the hint alone when asked; populate (Linux 5.14+, probed once) for
    /// <see cref="PrefaultStrategy.Auto"/>; else the touch sweep, hinted first where the hint is useful. Where the
    /// touch cannot read through the kernel, Linux reads the mapped files through descriptors (<see cref="FileReadTouch"/>),
    /// and where it cannot even tell which pages are a file's (no /proc/self/maps, or not Linux) the touch is refused
    /// for the hint: it would load pages it has not proven to be inside their files. Then how the file bytes under each
    /// mapping come in (see <see cref="FileStaging.Prepare"/>: the huge-page advice on read-only mappings the regions
    /// cover densely, a staging view for dense writable ones, exact reads for sparse selections).
    /// </summary>
    /// <remarks>
    /// <paramref name="threads"/> say what the entry point's sweep allows: <c>Start</c>'s (beside the engine's init) keeps the huge-page advice
    /// on a VM that reports free pages, and samples no span after its populate on any machine. Measured with
    /// <c>overlap --init-threads 2 --repeat 3</c> on the development VM as it ships (2 GiB, 2 cores, an init that keeps
    /// both busy for 1.5 s; rows not yet settled): <c>Start</c>'s init took 1.50 s and 1.55 s (one region, a region per
    /// layer) against 1.55 s beside <c>Run</c> after the init, and the request was done at 0.80x and 0.53x the time of
    /// <c>Run</c> after the init. With every row settled on memory the host took back (docs/results/overlap-2g-reporting-on.md)
    /// the init took 1.02x and 1.01x its time with no prefault and the request was done at 0.96x and 0.92x (0.87x-1.19x,
    /// within noise) the time of <c>Run</c> after the init (an earlier run: 1.04x and 1.07x): the host's faults, 11-12 us
    /// a page, are vCPU time the busy init leaves to nobody, whichever layout pays them. Before, 4 KiB folios in
    /// read-ahead windows (the choice for <c>Run</c> there) stretched the init to 1.18x its time with no prefault (its threads waited 190 ms for
    /// a core: the kernel's work per small folio is charged to the sweep's threads) and the request was done at 0.58x;
    /// 2 MiB folios with the sampled touch after them, tried before this choice, cost the init 1.03x with one region
    /// but 1.23-1.34x with a region per layer (the touch read 246 of 1,088 spans the host had taken back, through the
    /// kernel, on the init's cores). The host's faults the touch would have paid fall to the request, which waits for
    /// its layers anyway.
    /// </remarks>
    /// <param name="work">The run's plan.</param>
    /// <param name="options">The run's options.</param>
    /// <param name="log">Where the choice is logged.</param>
    /// <param name="threads">The entry point's sweep (<see cref="SweepThreads.ForRun"/> or <see cref="SweepThreads.ForStart"/>): whether it touches after a populate and keeps the huge-page advice.</param>
    /// <param name="reporting">Whether a balloon reports free pages; null: <see cref="FreePageReporting.IsActive"/>.</param>
    /// <param name="cpuSaysHypervisor">The CPU's answer; null: <see cref="Hypervisor.IsPresent"/>.</param>
    internal static SweepMechanism Choose(PrefaultPlan work, PrefaultOptions options, ILogger log, SweepThreads threads, bool? reporting = null,
        bool? cpuSaysHypervisor = null)
    {
        PrefaultMethod method = ChooseMethod(options.Strategy, log);
        bool uncheckedTouch = method == PrefaultMethod.Touch && !OperatingSystem.IsWindows() && !SafeTouch.IsKernelChecked;
        if (uncheckedTouch && (!OperatingSystem.IsLinux() || work.Maps.Length == 0))
        {
            Log.TouchRefused(log, options.Label);
            method = PrefaultMethod.Hint;
        }

        bool somethingToRead = work.BytesNeeded > 0;
        bool reports = reporting ?? FreePageReporting.IsActive;
        bool samples = SamplesAfterPopulate(method, somethingToRead, threads.TouchesAfterPopulate, reports, cpuSaysHypervisor);
        if (!samples && SamplesAfterPopulate(method, somethingToRead, threads.TouchesAfterPopulate, reporting: true))
        {
            Log.NotSampledWithoutHypervisor(log, options.Label);
        }

        // The touch, where it reads through the kernel, makes the engine's access through its own mapping where it may.
        MappingTouch? throughMapping = null;
        string touchFallback = string.Empty;
        if (OperatingSystem.IsLinux() && (samples || method == PrefaultMethod.Touch) && SafeTouch.IsKernelChecked)
        {
            throughMapping = MappingTouch.TryCreate();
            if (throughMapping is null)
            {
                touchFallback = $"the touch reads through process_vm_readv, not the engine's mapping: {MappingTouch.Refusal} (a seccomp filter?)";
                Log.MappingTouchRefused(log, options.Label, MappingTouch.Refusal);
            }
        }

        return new SweepMechanism(
            method,
            HintsFirst: method == PrefaultMethod.Hint || (method == PrefaultMethod.Touch && !OperatingSystem.IsLinux()),
            TouchesAfterPopulate: samples,
            FileStaging.Prepare(work.Ranges, work.Maps, method, options.IsHugePageAdviceEnabled, reports, somethingToRead, log, options.Label,
                threads.KeepsHugePageAdvice),
            FileRead: method == PrefaultMethod.Touch && OperatingSystem.IsLinux() && !SafeTouch.IsKernelChecked ? new FileReadTouch(work.Maps) : null,
            Maps: work.Maps,
            ThroughMapping: throughMapping,
            TouchFallback: touchFallback);
    }

    /// <summary>
    /// Whether each populated chunk is sampled after its populate (<see cref="TouchesAfterPopulate"/>): a populate run
    /// that had something to read, where the entry point allows it (<paramref name="touchAllowed"/>: not beside the init), where the touch goes through the kernel
    /// (<paramref name="kernelChecked"/>, else <see cref="SafeTouch.IsKernelChecked"/>), and only where a host may
    /// fault the memory in: a balloon reports free pages (<paramref name="reporting"/>) or the CPU reports a hypervisor
    /// (<paramref name="cpuSaysHypervisor"/>, else <see cref="Hypervisor.IsPresent"/>). On bare metal the sampling is
    /// CPU spent for nothing: on the development VM (reporting suspended, a cold 1 GiB on RAM-backed ext4, a NativeAOT
    /// host, 11 rounds) a run used 31.8 ms of CPU and loaded in 244 ms with it, 22.6 ms and 240 ms with it patched
    /// out, where a C populate used 22.7 ms. The kernel check and the CPU are asked last, so a run that cannot sample (a
    /// warm set, <c>Start</c>) never probes them.
    /// </summary>
    internal static bool SamplesAfterPopulate(PrefaultMethod method, bool somethingToRead, bool touchAllowed, bool reporting,
        bool? cpuSaysHypervisor = null, bool? kernelChecked = null) =>
        method == PrefaultMethod.Populate && somethingToRead && touchAllowed
        && (kernelChecked ?? SafeTouch.IsKernelChecked) && (reporting || (cpuSaysHypervisor ?? Hypervisor.IsPresent));

    /// <summary>
    /// What the sweep does to each chunk, in words for the result: the method, and the touch after a populate or the
    /// touch itself with what it reads through (and why not the mapping, where it could not).
    /// </summary>
    internal string Describe()
    {
        string touch = ThroughMapping is not null ? "through the engine's mapping (pwritev into a memfd)"
            : FileRead is not null ? "through the mapped files' descriptors"
            : "through the kernel (process_vm_readv)";
        string what = Method switch
        {
            PrefaultMethod.Populate when TouchesAfterPopulate => $"MADV_POPULATE_READ, then each 2 MiB span sampled and read whole where slow, {touch}",
            PrefaultMethod.Populate => "MADV_POPULATE_READ",
            PrefaultMethod.Touch => $"a touch of every page, {touch}",
            PrefaultMethod.Hint => "the read-ahead hint alone",
            _ => string.Empty,
        };
        return TouchFallback.Length == 0 || what.Length == 0 ? what : $"{what}; {TouchFallback}";
    }

    /// <summary>Unmaps the staging views and closes the touch's memfds: as soon as the sweep is done, not held through the measure and the result.</summary>
    public void Dispose()
    {
        Staging?.Dispose();
        if (OperatingSystem.IsLinux())
        {
            ThroughMapping?.Dispose();
        }
    }

    private static PrefaultMethod ChooseMethod(PrefaultStrategy strategy, ILogger log)
    {
        if (strategy == PrefaultStrategy.HintOnly)
        {
            return PrefaultMethod.Hint;
        }

        if (strategy == PrefaultStrategy.Auto)
        {
            if (PopulateSupport.IsSupported(out PlatformError probeError))
            {
                return PrefaultMethod.Populate;
            }

            if (OperatingSystem.IsLinux())
            {
                Log.PopulateUnsupported(log, probeError);
            }
        }

        return PrefaultMethod.Touch;
    }
}
