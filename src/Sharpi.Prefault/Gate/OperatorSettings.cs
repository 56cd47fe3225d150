using System.Globalization;
using System.Text;
using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>The operators' mode, from <c>SHARPI_PREFAULT</c>.</summary>
internal enum PrefaultMode
{
    /// <summary>Unset or <c>auto</c>: the RAM-fit gate decides.</summary>
    Auto = 0,

    /// <summary><c>0</c>, <c>off</c> or <c>false</c>: the kill switch, whatever the code asks.</summary>
    Off = 1,

    /// <summary><c>1</c>, <c>on</c> or <c>force</c>: prefault everything, bypassing the RAM-fit gate.</summary>
    Force = 2,
}

/// <summary>Reads <c>SHARPI_PREFAULT</c> and <c>SHARPI_PREFAULT_RAM_FRACTION</c> at each run; bad values warn, never fail.</summary>
internal readonly struct OperatorSettings
{
    internal const string ModeVariable = "SHARPI_PREFAULT";

    internal const string FractionVariable = "SHARPI_PREFAULT_RAM_FRACTION";

    /// <summary>What a result says when the kill switch stopped it.</summary>
    internal const string OffReason = "SHARPI_PREFAULT is off: prefault switched off by the operator";

    private static readonly RamGateDecision Off = new(false, false, 0, OffReason);

    private static readonly RamGateDecision Forced = new(true, false, long.MaxValue, "SHARPI_PREFAULT is force: RAM gate bypassed");

    internal OperatorSettings(PrefaultMode mode, double ramFraction)
    {
        Mode = mode;
        RamFraction = ramFraction;
        Decision = mode switch
        {
            PrefaultMode.Off => Off,
            PrefaultMode.Force => Forced,
            _ => null,
        };
    }

    internal PrefaultMode Mode { get; }

    /// <summary>The RAM fraction a prefault may fill: the operators' when valid, else the caller's.</summary>
    internal double RamFraction { get; }

    /// <summary>The operators' decision; null under auto.</summary>
    internal RamGateDecision? Decision { get; }

    /// <summary>True when the kill switch is set now (a fresh read, no warning).</summary>
    internal static bool IsOffNow => IsOff(out _);

    /// <summary>The operators' decision, else the RAM gate's.</summary>
    internal RamGateDecision Decide(long bytesNeeded, long bytesAlreadyResident, MemoryFigures memory, RamGate gate) =>
        Decision ?? RamGateDecision.Decide(bytesNeeded, bytesAlreadyResident, memory, gate, RamFraction);

    /// <summary>True when <see cref="Decide"/> reads the memory figures.</summary>
    internal bool WeighsMemory(RamGate gate) => Decision is null && gate == RamGate.FitsInRam;

    /// <summary>Reads both variables now, warning about a value it cannot use.</summary>
    internal static OperatorSettings Read(double optionsFraction, ILogger log)
    {
        string? modeValue = Environment.GetEnvironmentVariable(ModeVariable);
        PrefaultMode mode = ParseMode(modeValue, out bool recognized);
        if (!recognized)
        {
            Log.UnknownMode(log, Visible(modeValue!.Trim()));
        }

        string? fractionValue = Environment.GetEnvironmentVariable(FractionVariable);
        double? fraction = ParseFraction(fractionValue, out bool fractionValid);
        if (!fractionValid)
        {
            Log.InvalidFraction(log, Visible(fractionValue!), optionsFraction);
        }

        return new OperatorSettings(mode, fraction ?? optionsFraction);
    }

    /// <summary>True when the kill switch is set now; <paramref name="value"/> is the variable trimmed, empty when unset.</summary>
    internal static bool IsOff(out string value)
    {
        value = Environment.GetEnvironmentVariable(ModeVariable)?.Trim() ?? string.Empty;
        return ParseMode(value, out _) == PrefaultMode.Off;
    }

    /// <summary>Parses a <c>SHARPI_PREFAULT</c> value; an unknown one is <see cref="PrefaultMode.Auto"/>, not recognized.</summary>
    internal static PrefaultMode ParseMode(string? value, out bool recognized)
    {
        recognized = true;
        ReadOnlySpan<char> v = value.AsSpan().Trim();
        if (v.IsEmpty || v.Equals("auto", StringComparison.OrdinalIgnoreCase))
        {
            return PrefaultMode.Auto;
        }

        if (v.Equals("0", StringComparison.Ordinal) || v.Equals("off", StringComparison.OrdinalIgnoreCase) || v.Equals("false", StringComparison.OrdinalIgnoreCase))
        {
            return PrefaultMode.Off;
        }

        if (v.Equals("1", StringComparison.Ordinal) || v.Equals("on", StringComparison.OrdinalIgnoreCase) || v.Equals("force", StringComparison.OrdinalIgnoreCase))
        {
            return PrefaultMode.Force;
        }

        recognized = false;
        return PrefaultMode.Auto;
    }

    /// <summary>Parses a RAM fraction: null when blank or invalid.</summary>
    internal static double? ParseFraction(string? value, out bool valid)
    {
        valid = true;
        if (string.IsNullOrWhiteSpace(value))
        {
            return null;
        }

        if (double.TryParse(value.Trim(), NumberStyles.Float, CultureInfo.InvariantCulture, out double f) && f > 0 && f <= 1)
        {
            return f;
        }

        valid = false;
        return null;
    }

    /// <summary>The value with unprintable characters as <c>\uXXXX</c>.</summary>
    internal static string Visible(string value)
    {
        StringBuilder? visible = null;
        for (int i = 0; i < value.Length; i++)
        {
            char c = value[i];
            if (char.IsSurrogatePair(value, i))
            {
                visible?.Append(c).Append(value[i + 1]); // a character past the BMP (an emoji): shown as itself
                i++;
                continue;
            }

            if (IsShown(c))
            {
                visible?.Append(c);
                continue;
            }

            visible ??= new StringBuilder(value.Length + 8).Append(value, 0, i);
            visible.Append(CultureInfo.InvariantCulture, $"\\u{(int)c:X4}");
        }

        return visible?.ToString() ?? value;
    }

    private static bool IsShown(char c) => c == ' ' || char.GetUnicodeCategory(c) switch
    {
        UnicodeCategory.Control or UnicodeCategory.Format or UnicodeCategory.SpaceSeparator or UnicodeCategory.LineSeparator
            or UnicodeCategory.ParagraphSeparator or UnicodeCategory.OtherNotAssigned or UnicodeCategory.PrivateUse
            or UnicodeCategory.Surrogate => false,
        _ => true,
    };
}
