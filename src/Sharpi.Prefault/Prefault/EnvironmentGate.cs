using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>Reads the operators' environment variables. Read at each run, so an operator can flip them live.</summary>
internal static class EnvironmentGate
{
    internal const string FractionVariable = "SHARPI_PREFAULT_RAM_FRACTION";

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

        if (OperatorSwitch.IsOff(v))
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

    internal static string? ReadMode() => OperatorSwitch.Read();

    internal static string? ReadFraction() => Environment.GetEnvironmentVariable(FractionVariable);
}
