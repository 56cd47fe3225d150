using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>Immutable settings for <see cref="MmapReclaim"/>: <c>ReclaimOptions.Default with { Label = "engine", Logger = log }</c>.</summary>
public sealed record ReclaimOptions
{
    private readonly string _label = "reclaim";

    /// <summary>Options with every default: label <c>"reclaim"</c>, no logger.</summary>
    public static ReclaimOptions Default { get; } = new();

    /// <summary>A short name for logs, e.g. the engine or model name. Default <c>"reclaim"</c>.</summary>
    /// <exception cref="ArgumentException">The value is null, empty or white space.</exception>
    public string Label { get => _label; init => _label = ThrowHelper.NotBlank(value); }

    /// <summary>Where the call logs (one Information line, one per skipped range). Default: none.</summary>
    public ILogger? Logger { get; init; }
}
