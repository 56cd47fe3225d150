namespace Sharpi.Prefault;

/// <summary>What the gate decided, and why.</summary>
/// <param name="ShouldRun">True when a sweep should run over at least the first <see cref="BudgetBytes"/> not-yet-resident bytes.</param>
/// <param name="IsPartial">True when only part of what is needed fits: prefault regions in order until <see cref="BudgetBytes"/> is used.</param>
/// <param name="BudgetBytes">How many not-yet-resident bytes may be brought in; <see cref="long.MaxValue"/> when unlimited.</param>
/// <param name="Mode">The operators' mode that applied.</param>
/// <param name="Reason">The decision in words, for a log line.</param>
public readonly record struct PrefaultDecision(bool ShouldRun, bool IsPartial, long BudgetBytes, PrefaultMode Mode, string Reason);
