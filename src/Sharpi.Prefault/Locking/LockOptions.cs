using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>Immutable settings for <see cref="MmapLock"/>: <c>new LockOptions { Label = "engine", Logger = log }</c>.</summary>
public sealed class LockOptions
{
    private readonly string _label = "lock";
    private readonly RamGate _ramGate = RamGate.FitsInRam;
    private readonly double _ramFraction = RamGateDecision.DefaultFraction;

    // The options of a call that passes none; shared, since nothing can change them.
    internal static LockOptions Default { get; } = new();

    /// <summary>A short name for logs, e.g. the engine or model name. Default <c>"lock"</c>.</summary>
    /// <exception cref="ArgumentException">The value is null, empty or white space.</exception>
    public string Label { get => _label; init => _label = ThrowHelper.NotBlank(value); }

    /// <summary>
    /// How the RAM gate limits the lock. Default <see cref="RamGate.FitsInRam"/>, which locks the regions in order up
    /// to the budget, since locked pages cannot be reclaimed and too many end in the OOM killer.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not a defined <see cref="Sharpi.Prefault.RamGate"/>.</exception>
    public RamGate RamGate { get => _ramGate; init => _ramGate = ThrowHelper.Defined(value); }

    /// <summary>The fraction (0 &lt; f &lt;= 1) of available memory a lock may pin. Default 0.8.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not in (0, 1] or is not a number.</exception>
    public double RamFraction { get => _ramFraction; init => _ramFraction = ThrowHelper.ValidFraction(value); }

    /// <summary>Where the lease logs (Information when locked, a Warning per refused range, Debug on unlock). Default: none.</summary>
    public ILogger? Logger { get; init; }
}
