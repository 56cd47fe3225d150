using System.Globalization;
using System.Text;
using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>
/// What the operators set for one run, read once from the environment: the <c>SHARPI_PREFAULT</c> mode and the RAM
/// fraction (<c>SHARPI_PREFAULT_RAM_FRACTION</c> when valid, else the caller's). Bad values are warned about here,
/// once per run, and never fail the run; the warning quotes the value with its invisible characters written out
/// (<c>'off\u200B'</c>: a zero-width space pasted from a chat read as <c>'off'</c> in the log, an unknown value that
/// looked like the kill switch).
/// </summary>
internal readonly record struct OperatorSettings(PrefaultMode Mode, double RamFraction)
{
    /// <summary>
    /// The kill switch's decision, decided here and nowhere else in a run: under <c>SHARPI_PREFAULT=off</c> it is the
    /// run's whole decision (nothing is merged, measured or touched, and the RAM gate is never asked); null otherwise.
    /// It is the decision <see cref="MmapPrefault.Decide"/> gives for <see cref="PrefaultMode.Off"/>: one value, made in one place.
    /// </summary>
    internal RamGateDecision? KillSwitch { get; } = Mode == PrefaultMode.Off ? Off : null;

    /// <summary>The kill switch's decision: nothing runs, and the reason says the operator switched it off.</summary>
    internal static RamGateDecision Off { get; } = new(false, false, 0, OperatorSwitch.OffReason);

    internal static OperatorSettings Read(double optionsFraction, ILogger log)
    {
        string? modeValue = EnvironmentGate.ReadMode();
        PrefaultMode mode = EnvironmentGate.ParseMode(modeValue, out bool recognized);
        if (!recognized)
        {
            Log.UnknownMode(log, Visible(modeValue!.Trim()));
        }

        string? fractionValue = EnvironmentGate.ReadFraction();
        double? fraction = EnvironmentGate.ParseFraction(fractionValue, out bool fractionValid);
        if (!fractionValid)
        {
            Log.InvalidFraction(log, Visible(fractionValue!), optionsFraction);
        }

        return new OperatorSettings(mode, fraction ?? optionsFraction);
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
