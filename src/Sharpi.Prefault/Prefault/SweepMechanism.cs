using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>
/// How one run brings its pages in, decided in one step (<see cref="Choose"/>) and only read after it: the method, the
/// hint before the sweep, the populate candidates in trial order (<see cref="PopulateMechanism"/>; the first is the
/// guess, the only one where the run takes no trial), the touch after each populate, and what the touch reads through.
/// </summary>
/// <param name="Method">The method the result reports.</param>
/// <param name="HintsFirst">
/// The OS read-ahead hint over the regions before the sweep: all of a <see cref="PrefaultMethod.Hint"/> run; before a
/// touch on macOS and Windows, which honour a whole-range hint (on Linux it is capped at the read-ahead window).
/// </param>
/// <param name="TouchAfter">
/// What follows each populate until a trial decides otherwise: the sampled touch only where a host may fault the
/// memory in (<see cref="SamplesAfterPopulate"/>), never beside the engine's init, whose cores it would take.
/// </param>
/// <param name="Candidates">The populate mechanisms in trial order; empty for a touch or a hint.</param>
/// <param name="FileRead">
/// The touch's reads where they cannot go through the kernel (Linux, <see cref="SafeTouch.IsKernelChecked"/> false):
/// file mappings read through their files, never loaded (<see cref="FileReadTouch"/>); null otherwise.
/// </param>
/// <param name="Maps">The run's snapshot of the mappings (empty where there is none), to tell what a failed page was.</param>
/// <param name="ThroughMapping">
/// The touch's access made through the engine's own mapping (<see cref="MappingTouch"/>: a host that shadows the
/// guest's page tables charges that access, not the kernel's read); null where memfd_create is refused or nothing is
/// touched: the touch then reads through <see cref="SafeTouch"/>.
/// </param>
/// <param name="TouchFallback">Why the touch does not go through the mapping where it could have (memfd_create refused); empty otherwise.</param>
internal sealed record SweepMechanism(PrefaultMethod Method, bool HintsFirst, TouchAfter TouchAfter, PopulateMechanism[] Candidates,
    FileReadTouch? FileRead = null, ProcMapEntry[]? Maps = null, MappingTouch? ThroughMapping = null, string TouchFallback = "") : IDisposable
{
    /// <summary>Each chunk is populated with MADV_POPULATE_READ (else touched).</summary>
    internal bool Populates => Method == PrefaultMethod.Populate;

    /// <summary>Chunks are swept at all (not for a hint alone).</summary>
    internal bool SweepsChunks => Method != PrefaultMethod.Hint;

    /// <summary>The first guess's staging (null for a touch or a hint): what the sweep uses unless a trial chooses another.</summary>
    internal FileStaging? Staging => Candidates.Length > 0 ? Candidates[0].Staging : null;

    /// <summary>The first populated chunks are sampled after their populate (<see cref="TouchAfter.Sampled"/>) or read whole.</summary>
    internal bool TouchesAfterPopulate => TouchAfter != TouchAfter.None;

    /// <summary>Units each candidate sweeps in the run's trial (<see cref="MechanismTrial.UnitsEach"/>); 0: no trial.</summary>
    internal int UnitsEach { get; init; }

    /// <summary>What a trial's choice is kept under for later runs of this process.</summary>
    internal MechanismChoice.ChoiceKey Key { get; init; }

    /// <summary>The first guess is what an earlier trial of this process chose on the same settings.</summary>
    internal bool IsReused { get; init; }

    /// <summary>A touch cannot fail softly: only pages that are mapped, readable and inside the file are swept (<see cref="TouchSafety"/>).</summary>
    internal bool ChecksBeforeTouch => Method == PrefaultMethod.Touch;

    /// <summary>
    /// The mechanism for <paramref name="work"/>: the hint alone when asked; populate (Linux 5.14+, probed once) for
    /// <see cref="PrefaultStrategy.Auto"/>; else the touch sweep, hinted first where the hint is useful. Where the
    /// touch cannot read through the kernel, Linux reads the mapped files through descriptors (<see cref="FileReadTouch"/>),
    /// and where it cannot even tell which pages are a file's the touch is refused for the hint. A populate gets its
    /// candidates in the static order (<see cref="MechanismChoice.Order"/>), or the one an earlier run chose on the
    /// same settings, and a trial where the set is large enough and something is left to read.
    /// </summary>
    /// <param name="work">The run's plan.</param>
    /// <param name="options">The run's options.</param>
    /// <param name="log">Where the choice is logged.</param>
    /// <param name="threads">The entry point's sweep: whether it touches after a populate and runs beside an init.</param>
    /// <param name="reporting">Whether a balloon reports free pages; null: <see cref="FreePageReporting.IsActive"/>.</param>
    /// <param name="cpuSaysHypervisor">The CPU's answer; null: <see cref="Hypervisor.IsPresent"/>.</param>
    /// <param name="hypervisor">The hypervisor's signature; null: <see cref="Hypervisor.ReadSignature"/>.</param>
    internal static SweepMechanism Choose(PrefaultPlan work, PrefaultOptions options, ILogger log, SweepThreads threads, bool? reporting = null,
        bool? cpuSaysHypervisor = null, string? hypervisor = null)
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

        (PopulateMechanism[] candidates, int unitsEach, MechanismChoice.ChoiceKey key, MechanismChoice.Choice? reused) =
            method == PrefaultMethod.Populate && OperatingSystem.IsLinux()
                ? PrepareCandidates(work, options, log, threads, reports, hypervisor, somethingToRead)
                : ([], 0, default, null);
        TouchAfter touch = !threads.TouchesAfterPopulate ? TouchAfter.None
            : reused is { TouchesAll: true } ? TouchAfter.All
            : samples && KernelTouchPays() ? TouchAfter.Sampled
            : TouchAfter.None;

        // The touch, where it reads through the kernel, makes the engine's access through its own mapping where it may.
        MappingTouch? throughMapping = null;
        string touchFallback = string.Empty;
        bool touches = touch != TouchAfter.None || unitsEach > 0 || method == PrefaultMethod.Touch;
        if (OperatingSystem.IsLinux() && touches && SafeTouch.IsKernelChecked)
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
            touch,
            candidates,
            FileRead: method == PrefaultMethod.Touch && OperatingSystem.IsLinux() && !SafeTouch.IsKernelChecked ? new FileReadTouch(work.Maps) : null,
            Maps: work.Maps,
            ThroughMapping: throughMapping,
            TouchFallback: touchFallback)
        {
            UnitsEach = unitsEach,
            Key = key,
            IsReused = reused is not null,
        };
    }

    /// <summary>
    /// The populate candidates in trial order, each with its staging prepared, and the units each gets in a trial (0:
    /// none, and the first is committed at once). A trial needs something to read, a second candidate, a set large
    /// enough (<see cref="MechanismTrial.UnitsEach"/>) of read-only file mappings covered whole, no writable mapping
    /// covered whole (its views cannot be tried a unit at a time), and room for the mappings its units split.
    /// </summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static (PopulateMechanism[], int, MechanismChoice.ChoiceKey, MechanismChoice.Choice?) PrepareCandidates(PrefaultPlan work, PrefaultOptions options, ILogger log,
        SweepThreads threads, bool reports, string? hypervisor, bool somethingToRead)
    {
        string? thpMode = KernelFile.TryReadText(HugePageAdvice.EnabledPath);
        bool thpEnabled = HugePageAdvice.IsThpEnabled(thpMode);
        bool hugePages = options.IsHugePageAdviceEnabled && thpEnabled;
        ulong device = FirstFileDevice(work.Maps);
        long window = ReadAheadWindow.For(device, out long readAhead);
        var key = new MechanismChoice.ChoiceKey(device, readAhead, KernelFile.TryReadText(FreePageReporting.OrderPath)?.Trim() ?? string.Empty,
            thpMode?.Trim() ?? string.Empty, threads.KeepsHugePageAdvice, hugePages);
        FolioPolicy[] order = MechanismChoice.Order(hugePages, thpEnabled, threads.KeepsHugePageAdvice, ReadAheadWindow.ReadsMoreThanReadAhead(window, readAhead),
            reports, hypervisor ?? Hypervisor.ReadSignature());
        MechanismChoice.Choice? reused = somethingToRead && MechanismTrial.BudgetShareOverride.Value is null ? MechanismChoice.Reused(key) : null;
        if (reused is { } r && Array.IndexOf(order, r.Policy) >= 0)
        {
            order = [r.Policy];
        }
        else
        {
            reused = null;
        }

        bool mayTry = somethingToRead && order.Length > 1;
        PopulateMechanism first = Prepare(work, order[0], somethingToRead, log, options.Label, reports, mayTry);
        int unitsEach = mayTry && first.Staging.UntrialableWholeBytes == 0 ? MechanismTrial.UnitsEach(first.Staging.TrialableBytes, order.Length) : 0;
        if (unitsEach > 0 && !MappingRoom.Current().TryTake((2L * unitsEach) + 2))
        {
            unitsEach = 0;
        }

        if (unitsEach == 0)
        {
            first.Commit();
            return ([first], 0, key, reused);
        }

        var candidates = new PopulateMechanism[order.Length];
        candidates[0] = first;
        for (int c = 1; c < order.Length; c++)
        {
            candidates[c] = Prepare(work, order[c], somethingToRead, log, options.Label, reports, deferAdvice: true);
        }

        return (candidates, unitsEach, key, null);
    }

    private static PopulateMechanism Prepare(PrefaultPlan work, FolioPolicy policy, bool somethingToRead, ILogger log, string label, bool reports, bool deferAdvice) =>
        PopulateMechanism.Create(FileStaging.Prepare(work.Ranges, work.Maps, PrefaultMethod.Populate, policy, somethingToRead, log, label, deferAdvice), reports);

    /// <summary>
    /// Whether a touch through the kernel pays the engine's first access on this machine (<see cref="FirstAccessProbe"/>,
    /// measured once per process): where it does not, sampling after the populate is CPU for nothing.
    /// </summary>
    private static bool KernelTouchPays() => !OperatingSystem.IsLinux() || FirstAccessProbe.Current.KernelTouchPays;

    /// <summary>The device of the first file mapping in <paramref name="maps"/> (a model's files share one); 0 where there is none.</summary>
    private static ulong FirstFileDevice(ProcMapEntry[] maps)
    {
        foreach (ProcMapEntry m in maps)
        {
            if (m.IsFileBacked && m.Device != 0)
            {
                return m.Device;
            }
        }

        return 0;
    }

    /// <summary>
    /// Whether each populated chunk is sampled after its populate (<see cref="TouchesAfterPopulate"/>): a populate run
    /// that had something to read, where the entry point allows it (<paramref name="touchAllowed"/>: not beside the init), where the touch goes through the kernel
    /// (<paramref name="kernelChecked"/>, else <see cref="SafeTouch.IsKernelChecked"/>), and only where a host may
    /// fault the memory in: a balloon reports free pages (<paramref name="reporting"/>) or the CPU reports a hypervisor
    /// (<paramref name="cpuSaysHypervisor"/>, else <see cref="Hypervisor.IsPresent"/>): on bare metal the sampling
    /// is CPU spent for nothing. The kernel check and the CPU are asked last, so a run that cannot sample never probes them.
    /// </summary>
    internal static bool SamplesAfterPopulate(PrefaultMethod method, bool somethingToRead, bool touchAllowed, bool reporting,
        bool? cpuSaysHypervisor = null, bool? kernelChecked = null) =>
        method == PrefaultMethod.Populate && somethingToRead && touchAllowed
        && (kernelChecked ?? SafeTouch.IsKernelChecked) && (reporting || (cpuSaysHypervisor ?? Hypervisor.IsPresent));

    /// <summary>
    /// What the sweep did to each chunk, in words for the result: the populate mechanism that ran and the touch after
    /// it, or the touch itself, with what the touch read through (and why not the mapping, where it could not); then
    /// the trial, where there was one: each candidate's cost and its first access over its second.
    /// </summary>
    internal string Describe(PopulateMechanism? ran = null, TouchAfter? touchAfter = null, TrialOutcome? trial = null)
    {
        ran ??= Candidates.Length > 0 ? Candidates[0] : null;
        TouchAfter after = touchAfter ?? TouchAfter;
        string touch = ThroughMapping is not null ? "through the engine's mapping (pwritev into a memfd)"
            : FileRead is not null ? "through the mapped files' descriptors"
            : "through the kernel (process_vm_readv)";
        string populate = ran is null ? "MADV_POPULATE_READ" : $"{ran.Name} (MADV_POPULATE_READ)";
        string what = Method switch
        {
            PrefaultMethod.Populate when after == TouchAfter.All => $"{populate}, then every page accessed once, {touch}",
            PrefaultMethod.Populate when after == TouchAfter.Sampled => $"{populate}, then each 2 MiB span sampled and read whole where slow, {touch}",
            PrefaultMethod.Populate => populate,
            PrefaultMethod.Touch => $"a touch of every page, {touch}",
            PrefaultMethod.Hint => "the read-ahead hint alone",
            _ => string.Empty,
        };
        if (IsReused)
        {
            what += "; chosen by an earlier run's trial on the same device, read-ahead, reporting order and THP mode";
        }

        if (trial is not null)
        {
            var tried = new System.Text.StringBuilder();
            for (int c = 0; c < Candidates.Length; c++)
            {
                tried.Append(c == 0 ? string.Empty : ", ").Append(Candidates[c].Name).Append(' ')
                    .Append(double.IsNaN(trial.Rates[c]) ? "not measured" : string.Create(System.Globalization.CultureInfo.InvariantCulture,
                        $"{trial.Rates[c]:0.00} ns/B ({trial.EngineNanoseconds[c] / 1e6:0.0} ms of it the engine's first access, {PmdShare(trial.Pmd[c], c, trial)} 2 MiB-mapped; touch through the kernel: first {trial.FirstTouchRatios[c]:0.0}x a second)"));
            }

            what += string.Create(System.Globalization.CultureInfo.InvariantCulture,
                $"; trial of {trial.UnitsEach} x {Sizes.Format(MechanismTrial.UnitBytes)} each: {tried}; a first load's extra on this machine: {trial.Probe.Page:0} ns a 4 KiB page, {trial.Probe.HugeMapping:0} ns a 2 MiB mapping, {trial.Probe.PageAfterKernelTouch:0} ns a page after a touch through the kernel; the alternatives cost {MechanismTrial.ExtraNanoseconds(trial.Rates, trial.CandidateBytes) / 1e6:0.0} ms over the first guess");
        }

        return TouchFallback.Length == 0 || what.Length == 0 ? what : $"{what}; {TouchFallback}";
    }

    private static string PmdShare(long pmd, int candidate, TrialOutcome trial) =>
        pmd < 0 ? "unknown" : string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{100.0 * pmd / Math.Max(1, trial.CandidateBytes[candidate]):0}%");

    /// <summary>Unmaps every candidate's staging views and closes the touch's memfds: as soon as the sweep is done, not held through the measure and the result.</summary>
    public void Dispose()
    {
        foreach (PopulateMechanism candidate in Candidates)
        {
            candidate.Dispose();
        }

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
