namespace Sharpi.Prefault;

/// <summary>
/// What the RAM-fit gate decided, and why: a lock's decision (<see cref="LockLease.Decision"/>), and a prefault's
/// (<see cref="MmapPrefault.Decide"/>, where the operators' <c>SHARPI_PREFAULT</c> mode comes first).
/// </summary>
/// <param name="ShouldRun">True when at least the first <see cref="BudgetBytes"/> bytes may be taken.</param>
/// <param name="IsPartial">True when only part of what was asked fits: the regions in the order given until <see cref="BudgetBytes"/> is used.</param>
/// <param name="BudgetBytes">How many bytes may be taken; <see cref="long.MaxValue"/> when unlimited.</param>
/// <param name="Reason">The decision in words, for a log line.</param>
public readonly record struct RamGateDecision(bool ShouldRun, bool IsPartial, long BudgetBytes, string Reason);
