namespace Sharpi.Prefault;

/// <summary>
/// The populate mechanisms a run may use, in the order the static signals suggest (the first is the guess a run too
/// small for a trial takes), and the choices earlier runs of this process measured, reused by runs on the same
/// machine settings. The signals only order the candidates; the trial decides (<see cref="MechanismTrial"/>).
/// </summary>
internal static class MechanismChoice
{
    private static readonly Dictionary<ChoiceKey, Choice> s_chosen = [];

    /// <summary>
    /// The candidates' folio policies in trial order. Huge pages are a candidate where the option and THP allow them;
    /// with THP off only windows (a mapping the engine marked MADV_RANDOM gets no read-ahead on its faults, and
    /// machines with THP off are often such NUMA servers). <paramref name="besideInit"/> (<c>Start</c>) keeps to huge pages and windows, the layouts measured beside an init. Among the
    /// 4 KiB paths, windows come first where they read more a request than the device's read-ahead. Huge pages come
    /// last only on a KVM host that reports free pages, where each 2 MiB folio lands on a block the host took back.
    /// </summary>
    /// <param name="hugePages">The option allows the advice and THP is on.</param>
    /// <param name="thpEnabled">THP is <c>always</c> or <c>madvise</c>.</param>
    /// <param name="besideInit">The sweep runs beside the engine's init (<see cref="SweepThreads.KeepsHugePageAdvice"/>).</param>
    /// <param name="windowsReadMore">A read-ahead window reads more a request than the device's own read-ahead.</param>
    /// <param name="reporting">A balloon reports free pages.</param>
    /// <param name="hypervisor">The hypervisor's CPUID signature; null on bare metal or where unknown.</param>
    internal static FolioPolicy[] Order(bool hugePages, bool thpEnabled, bool besideInit, bool windowsReadMore, bool reporting, string? hypervisor)
    {
        if (!thpEnabled)
        {
            return [FolioPolicy.Windows];
        }

        if (besideInit)
        {
            return hugePages ? [FolioPolicy.HugePages, FolioPolicy.Windows] : [FolioPolicy.Windows];
        }

        FolioPolicy[] small = windowsReadMore ? [FolioPolicy.Windows, FolioPolicy.ReadAhead] : [FolioPolicy.ReadAhead, FolioPolicy.Windows];
        if (!hugePages)
        {
            return small;
        }

        bool hugeLast = reporting && hypervisor is not null && hypervisor.StartsWith("KVMKVMKVM", StringComparison.Ordinal);
        return hugeLast ? [.. small, FolioPolicy.HugePages] : [FolioPolicy.HugePages, .. small];
    }

    /// <summary>A choice an earlier run of this process made on the same settings, or null.</summary>
    internal static Choice? Reused(in ChoiceKey key)
    {
        lock (s_chosen)
        {
            return s_chosen.TryGetValue(key, out Choice choice) ? choice : null;
        }
    }

    /// <summary>Keeps <paramref name="choice"/> for later runs on <paramref name="key"/>'s settings.</summary>
    internal static void Remember(in ChoiceKey key, Choice choice)
    {
        lock (s_chosen)
        {
            s_chosen[key] = choice;
        }
    }

    /// <summary>Forgets every choice (tests).</summary>
    internal static void Forget()
    {
        lock (s_chosen)
        {
            s_chosen.Clear();
        }
    }

    /// <summary>What a measured choice depends on: the device and its read-ahead, the free page reporting order, the THP mode, and the entry point's sweep.</summary>
    internal readonly record struct ChoiceKey(ulong Device, long ReadAheadBytes, string ReportingOrder, string ThpMode, bool BesideInit, bool HugePages);

    /// <summary>A trial's outcome: the policy that won and whether the rest is touched after its populate.</summary>
    internal readonly record struct Choice(FolioPolicy Policy, bool TouchesAll);
}
