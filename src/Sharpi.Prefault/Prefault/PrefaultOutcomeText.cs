namespace Sharpi.Prefault;

/// <summary>The end of a run's summary line, formatted only when the message is written.</summary>
internal readonly record struct PrefaultOutcomeText(PrefaultResult Result)
{
    public override string ToString()
    {
        string outcome = Result.IsCanceled ? $"; cancelled, {Sizes.Format(Result.BytesSkipped)} left"
            : Result.IsPartial ? $"; partial, {Sizes.Format(Result.BytesSkipped)} skipped by the RAM budget"
            : Result.Failures.Count > 0 ? $"; {Result.Failures.Count} region(s) failed"
            : string.Empty;
        return outcome;
    }
}
