using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>
/// What the operators set for one run, read once from the environment: the <c>SHARPI_PREFAULT</c> mode and the RAM
/// fraction (<c>SHARPI_PREFAULT_RAM_FRACTION</c> when valid, else the caller's). Bad values are warned about here,
/// once per run, and never fail the run.
/// </summary>
internal readonly record struct OperatorSettings(PrefaultMode Mode, double RamFraction)
{
    internal static OperatorSettings Read(double optionsFraction, ILogger log)
    {
        string? modeValue = EnvironmentGate.ReadMode();
        PrefaultMode mode = EnvironmentGate.ParseMode(modeValue, out bool recognized);
        if (!recognized)
        {
            Log.UnknownMode(log, modeValue!.Trim());
        }

        string? fractionValue = EnvironmentGate.ReadFraction();
        double? fraction = EnvironmentGate.ParseFraction(fractionValue, out bool fractionValid);
        if (!fractionValid)
        {
            Log.InvalidFraction(log, fractionValue!, optionsFraction);
        }

        return new OperatorSettings(mode, fraction ?? optionsFraction);
    }
}
