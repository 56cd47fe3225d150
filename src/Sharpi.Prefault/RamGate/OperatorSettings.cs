using System.Globalization;
using System.Text;
using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>The operators' mode, from <c>SHARPI_PREFAULT</c> (parsed by <see cref="OperatorSettings.ParseMode"/>).</summary>
internal enum PrefaultMode
{
    /// <summary>Unset or <c>auto</c>: the RAM-fit gate decides.</summary>
    Auto = 0,

    /// <summary><c>0</c>, <c>off</c> or <c>false</c>: never prefault, whatever the code asks (the kill switch).</summary>
    Off = 1,

    /// <summary><c>1</c>, <c>on</c> or <c>force</c>: prefault everything, whatever the RAM-fit gate says.</summary>
    Force = 2,
}

/// <summary>
/// The operators' environment variables, the one place they are read and parsed: <c>SHARPI_PREFAULT</c> (the mode,
/// whose <c>off</c> is the kill switch every feature that reads ahead of the engine obeys) and
/// <c>SHARPI_PREFAULT_RAM_FRACTION</c>. Read at each run, so an operator can flip them live. Bad values never fail a
/// run: <see cref="Read"/> warns once and quotes them with their invisible characters written out (<c>'off\u200B'</c>,
/// pasted from a chat, would read as the kill switch in a log).
/// </summary>
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

    /// <summary>The fraction of the memory that can hold the regions a prefault may fill: the operators' when valid, else the caller's.</summary>
    internal double RamFraction { get; }

    /// <summary>
    /// The operators' own decision, made here and nowhere else: under off nothing runs (nothing is merged, measured or
    /// touched), under force everything does with no limit; null under auto, where the RAM-fit gate decides.
    /// </summary>
    internal RamGateDecision? Decision { get; }

    /// <summary>True when the kill switch is set now (a fresh read of <c>SHARPI_PREFAULT</c>; nothing is warned about).</summary>
    internal static bool IsOffNow => IsOff(out _);

    /// <summary>Whether a run may go, and how far: the operators' <see cref="Decision"/>, else the RAM-fit gate's (arguments validated by the caller).</summary>
    internal RamGateDecision Decide(long bytesNeeded, long bytesAlreadyResident, MemoryFigures memory, RamGate gate) =>
        Decision ?? RamGateDecision.Decide(bytesNeeded, bytesAlreadyResident, memory, gate, RamFraction);

    /// <summary>True when <see cref="Decide"/> looks at the memory figures: only then are they worth reading.</summary>
    internal bool WeighsMemory(RamGate gate) => Decision is null && gate == RamGate.FitsInRam;

    /// <summary>
    /// Reads both variables now, warning on <paramref name="log"/> about a value it cannot use; the fraction is
    /// <paramref name="optionsFraction"/> (the caller's) unless the operators set a valid one.
    /// </summary>
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

    /// <summary>True when the kill switch is set now; <paramref name="value"/> is <c>SHARPI_PREFAULT</c> trimmed (empty when unset), for a message that quotes it.</summary>
    internal static bool IsOff(out string value)
    {
        value = Environment.GetEnvironmentVariable(ModeVariable)?.Trim() ?? string.Empty;
        return ParseMode(value, out _) == PrefaultMode.Off;
    }

    /// <summary>
    /// Parses a <c>SHARPI_PREFAULT</c> value (case-insensitive, trimmed). Unknown values mean
    /// <see cref="PrefaultMode.Auto"/> and <paramref name="recognized"/> false, so the caller can warn once.
    /// </summary>
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

    /// <summary>
    /// Parses a <c>SHARPI_PREFAULT_RAM_FRACTION</c> value: null when unset or blank, and
    /// <paramref name="valid"/> false for anything that is not a number in (0, 1].
    /// </summary>
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

    /// <summary>
    /// <paramref name="value"/> with every character a log would not show as itself written as <c>\uXXXX</c>: controls,
    /// format characters (zero-width spaces and joiners, bidi marks, the byte-order mark), separators other than the
    /// space, and anything unassigned, private or a lone surrogate.
    /// </summary>
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
