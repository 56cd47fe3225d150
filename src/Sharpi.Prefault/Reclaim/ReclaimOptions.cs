using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>Immutable settings for <see cref="MmapReclaim"/>: <c>new ReclaimOptions { Label = "engine", Logger = log }</c>.</summary>
public sealed class ReclaimOptions
{
    private readonly string _label = "reclaim";
    private readonly ReclaimMechanism _mechanism = ReclaimMechanism.PageOut;

    // The options of a call that passes none; shared, since nothing can change them.
    internal static ReclaimOptions Default { get; } = new();

    /// <summary>A short name for logs, e.g. the engine or model name. Default <c>"reclaim"</c>.</summary>
    /// <exception cref="ArgumentException">The value is null, empty or white space.</exception>
    public string Label { get => _label; init => _label = ThrowHelper.NotBlank(value); }

    /// <summary>
    /// How the pages are taken out of the process. Default <see cref="ReclaimMechanism.PageOut"/>, which never discards a
    /// byte; use <see cref="ReclaimMechanism.DontNeed"/> only where no thread remaps the regions while the call runs.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not a defined <see cref="ReclaimMechanism"/>.</exception>
    public ReclaimMechanism Mechanism { get => _mechanism; init => _mechanism = ThrowHelper.Defined(value); }

    /// <summary>Where the call logs (one Information line, one per skipped range). Default: none.</summary>
    public ILogger? Logger { get; init; }
}
