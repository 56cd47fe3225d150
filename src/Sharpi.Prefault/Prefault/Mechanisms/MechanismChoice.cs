namespace Sharpi.Prefault;

/// <summary>
/// The candidates in the order the static signals suggest, and the choices this process's trials made, reused on the
/// same settings. The signals only order; the trial decides. Thread-safe.
/// </summary>
internal static class MechanismChoice
{
    private static readonly Dictionary<ChoiceKey, Choice> s_chosen = [];

    /// <summary>
    /// The candidates' policies in trial order: THP off, windows alone (often NUMA servers whose engines mark mappings
    /// MADV_RANDOM); beside an init, huge pages then windows; else huge pages first (last on a KVM host that reports free
    /// pages), then windows before the kernel's read-ahead where a window reads more a request.
    /// </summary>
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

    /// <summary>An earlier trial's choice on the same settings, or null.</summary>
    internal static Choice? Reused(in ChoiceKey key)
    {
        lock (s_chosen)
        {
            return s_chosen.TryGetValue(key, out Choice choice) ? choice : null;
        }
    }

    internal static void Remember(in ChoiceKey key, Choice choice)
    {
        lock (s_chosen)
        {
            s_chosen[key] = choice;
        }
    }

    /// <summary>Tests.</summary>
    internal static void Forget()
    {
        lock (s_chosen)
        {
            s_chosen.Clear();
        }
    }

    /// <summary>What a measured choice depends on.</summary>
    internal readonly record struct ChoiceKey(ulong Device, long ReadAheadBytes, string ReportingOrder, string ThpMode, bool BesideInit, bool HugePages);

    internal readonly record struct Choice(FolioPolicy Policy, bool TouchesAll);
}
