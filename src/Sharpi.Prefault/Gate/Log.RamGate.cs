using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>The operators' settings' warnings; event ids 3 and 4 kept from Prefault's, as log filters know them.</summary>
internal static partial class Log
{
    [LoggerMessage(EventId = 3, Level = LogLevel.Warning,
        Message = "SHARPI_PREFAULT has the unknown value '{Value}'; accepted values are 0, off, false, 1, on, force, auto (or unset). Behaving as auto.")]
    internal static partial void UnknownMode(ILogger logger, string value);

    [LoggerMessage(EventId = 4, Level = LogLevel.Warning,
        Message = "SHARPI_PREFAULT_RAM_FRACTION has the invalid value '{Value}'; it must be a number greater than 0 and at most 1. Using {Fraction}.")]
    internal static partial void InvalidFraction(ILogger logger, string value, double fraction);
}
