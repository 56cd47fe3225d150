using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>
/// How one run brings its pages in, decided once in <see cref="Choose"/>. The touch reads through
/// <see cref="ThroughMapping"/>, else <see cref="SafeTouch"/>, else (<see cref="FileRead"/>) the files.
/// </summary>
internal sealed record SweepMechanism(PrefaultMethod Method, bool HintsFirst, TouchAfter TouchAfter, PopulateMechanism[] Candidates,
    FileReadTouch? FileRead = null, ProcMapEntry[]? Maps = null, MappingTouch? ThroughMapping = null, string TouchFallback = "") : IDisposable
{
    internal bool Populates => Method == PrefaultMethod.Populate;

    internal bool SweepsChunks => Method != PrefaultMethod.Hint;

    /// <summary>The first guess's staging; null for a touch or a hint.</summary>
    internal FileStaging? Staging => Candidates.Length > 0 ? Candidates[0].Staging : null;

    internal bool TouchesAfterPopulate => TouchAfter != TouchAfter.None;

    /// <summary>Units each candidate gets in the trial; 0: no trial.</summary>
    internal int UnitsEach { get; init; }

    internal MechanismChoice.ChoiceKey Key { get; init; }

    internal bool IsReused { get; init; }

    /// <summary>A touch cannot fail softly.</summary>
    internal bool ChecksBeforeTouch => Method == PrefaultMethod.Touch;

    /// <summary>
    /// The hint when asked, populate where supported, else the touch (the hint where it can read neither through the
    /// kernel nor the files). Null arguments ask the machine.
    /// </summary>
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

        // A shadow-paging host charges the engine's access, not the kernel's.
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
    /// No trial (0 units, the first committed) without something to read, two candidates, a large read-only set and
    /// vm.max_map_count room: a writable whole mapping's view cannot be tried a unit at a time.
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

    private static bool KernelTouchPays() => !OperatingSystem.IsLinux() || FirstAccessProbe.Current.KernelTouchPays;

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

    /// <summary>Only where a host may fault memory in; the kernel and CPU are asked last, so a run that cannot sample never probes them.</summary>
    internal static bool SamplesAfterPopulate(PrefaultMethod method, bool somethingToRead, bool touchAllowed, bool reporting,
        bool? cpuSaysHypervisor = null, bool? kernelChecked = null) =>
        method == PrefaultMethod.Populate && somethingToRead && touchAllowed
        && (kernelChecked ?? SafeTouch.IsKernelChecked) && (reporting || (cpuSaysHypervisor ?? Hypervisor.IsPresent));

    /// <summary>For the result: what each chunk got and each candidate's cost.</summary>
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
                        $"{trial.Rates[c]:0.00} ns/B ({Units(trial, c)}, {trial.EngineNanoseconds[c] / 1e6:0.0} ms of it the engine's first access, {PmdShare(trial.Pmd[c], c, trial)} 2 MiB-mapped; touch through the kernel: first {trial.FirstTouchRatios[c]:0.0}x a second)"));
            }

            what += string.Create(System.Globalization.CultureInfo.InvariantCulture,
                $"; trial of up to {trial.UnitsEach} x {Sizes.Format(MechanismTrial.UnitBytes)} each: {tried}; a first load's extra on this machine: {trial.Probe.Page:0} ns a 4 KiB page, {trial.Probe.HugeMapping:0} ns a 2 MiB mapping, {trial.Probe.PageAfterKernelTouch:0} ns a page after a touch through the kernel; the alternatives cost {MechanismTrial.ExtraNanoseconds(trial.Rates, trial.CandidateBytes) / 1e6:0.0} ms over the first guess");
        }

        return TouchFallback.Length == 0 || what.Length == 0 ? what : $"{what}; {TouchFallback}";
    }

    private static string Units(TrialOutcome trial, int candidate) => trial.Stopped[candidate]
        ? string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{trial.UnitsSwept[candidate]} units, stopped past {1 + MechanismTrial.StopMargin:0.0}x the cheapest")
        : $"{trial.UnitsSwept[candidate]} units";

    private static string PmdShare(long pmd, int candidate, TrialOutcome trial) =>
        pmd < 0 ? "unknown" : string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{100.0 * pmd / Math.Max(1, trial.CandidateBytes[candidate]):0}%");

    /// <summary>Unmaps the views and closes the memfds, as soon as the sweep is done.</summary>
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
