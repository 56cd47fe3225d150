namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>A synchronous progress sink: the callback runs on the reporting thread (unlike Progress&lt;T&gt;, which posts).</summary>
public sealed class CallbackProgress(Action<PrefaultProgress> report) : IProgress<PrefaultProgress>
{
    public void Report(PrefaultProgress value) => report(value);
}

/// <summary>A synchronous progress sink of any value (the callback runs on the reporting thread).</summary>
public sealed class CallbackProgress<T>(Action<T> report) : IProgress<T>
{
    public void Report(T value) => report(value);
}
