namespace Sharpi.Prefault;

/// <summary>A once-per-process probe's answer: whether a call works here, and why not (not a Lazy, for ReadyToRun).</summary>
internal readonly struct ProbeAnswer
{
    internal ProbeAnswer(bool isAvailable, PlatformError error)
    {
        IsAvailable = isAvailable;
        Error = error;
    }

    internal bool IsAvailable { get; }

    internal PlatformError Error { get; }
}
