namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>A synchronous progress sink: the callback runs on the reporting thread (unlike Progress&lt;T&gt;, which posts).</summary>
public sealed class CallbackProgress(Action<PrefaultProgress> report) : IProgress<PrefaultProgress>
{
    public void Report(PrefaultProgress value) => report(value);
}
