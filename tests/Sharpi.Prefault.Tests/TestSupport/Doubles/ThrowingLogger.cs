using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>A caller's logger that throws at every line, as a broken logging provider does.</summary>
internal sealed class ThrowingLogger : ILogger
{
    internal const string Message = "the logging provider failed";

    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => true;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
        throw new InvalidOperationException(Message);
}
