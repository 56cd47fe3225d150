namespace Sharpi.Prefault;

/// <summary>
/// The operators' kill switch, <c>SHARPI_PREFAULT=off</c> (or <c>0</c>, <c>false</c>; trimmed, case-insensitive), read
/// at each call: here, below every feature, so that each that reads ahead of the engine (a run's sweep, the page cache
/// warm-up) stops for it alike. The rest of <c>SHARPI_PREFAULT</c> is the run's (<see cref="EnvironmentGate"/>).
/// </summary>
internal static class OperatorSwitch
{
    internal const string Variable = "SHARPI_PREFAULT";

    /// <summary>What a result says when the switch stopped it.</summary>
    internal const string OffReason = "SHARPI_PREFAULT is off: prefault switched off by the operator";

    /// <summary>True when the switch is off now.</summary>
    internal static bool IsOffNow => IsOff(Read().AsSpan().Trim());

    /// <summary>The variable's value now; null when unset.</summary>
    internal static string? Read() => Environment.GetEnvironmentVariable(Variable);

    /// <summary>True for the values (trimmed) that switch prefaulting off.</summary>
    internal static bool IsOff(ReadOnlySpan<char> trimmed) =>
        trimmed.Equals("0", StringComparison.Ordinal) || trimmed.Equals("off", StringComparison.OrdinalIgnoreCase) || trimmed.Equals("false", StringComparison.OrdinalIgnoreCase);
}
