namespace Sharpi.Prefault;

/// <summary>A once-per-process probe's answer: whether a call works here, and why not (not a Lazy, for ReadyToRun).</summary>
internal readonly struct ProbeAnswer
{
    private ProbeAnswer(bool isAvailable, PlatformError error)
    {
        IsAvailable = isAvailable;
        Error = error;
    }

    internal delegate bool Probe(out PlatformError error);

    internal bool IsAvailable { get; }

    internal PlatformError Error { get; }

    internal static ProbeAnswer Of(Probe probe) => new(probe(out PlatformError error), error);
}
