using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>Immutable settings for <see cref="MmapLock"/>: <c>LockOptions.Default with { Label = "engine", Logger = log }</c>.</summary>
public sealed record LockOptions
{
    private readonly string _label = "lock";

    /// <summary>Options with every default: label <c>"lock"</c>, no logger.</summary>
    public static LockOptions Default { get; } = new();

    /// <summary>A short name for logs, e.g. the engine or model name. Default <c>"lock"</c>.</summary>
    /// <exception cref="ArgumentException">The value is null, empty or white space.</exception>
    public string Label
    {
        get => _label;
        init
        {
            ArgumentException.ThrowIfNullOrWhiteSpace(value);
            _label = value;
        }
    }

    /// <summary>Where the lease logs (Information when locked, a Warning per refused range, Debug on unlock). Default: none.</summary>
    public ILogger? Logger { get; init; }
}
