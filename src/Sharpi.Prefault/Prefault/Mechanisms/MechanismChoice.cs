namespace Sharpi.Prefault;

/// <summary>The static order of the candidates, and the trials' choices reused on the same settings. Thread-safe.</summary>
internal static class MechanismChoice
{
    private static readonly Dictionary<ChoiceKey, Choice> s_chosen = [];

    /// <summary>The signals only order; the trial decides. docs/mechanisms.md gives the order.</summary>
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

    /// <summary>Null where no trial chose.</summary>
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

    /// <summary>Forgets every choice (tests).</summary>
    internal static void Forget()
    {
        lock (s_chosen)
        {
            s_chosen.Clear();
        }
    }

    internal readonly record struct ChoiceKey(ulong Device, long ReadAheadBytes, string ReportingOrder, string ThpMode, bool BesideInit, bool HugePages);

    internal readonly record struct Choice(FolioPolicy Policy, bool TouchesAll);
}
