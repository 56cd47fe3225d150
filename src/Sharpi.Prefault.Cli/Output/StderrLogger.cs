using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault.Cli.Output;

/// <summary>
/// The library's warnings (an unknown <c>SHARPI_PREFAULT</c> value, an invalid <c>SHARPI_PREFAULT_RAM_FRACTION</c>, a
/// progress display that failed) as <c>sharpi-prefault: warning: ...</c> lines on stderr.
/// </summary>
internal sealed class StderrLogger(TextWriter error) : ILogger
{
    private const int RegionFailedEvent = 5;
    private const int LockFailedEvent = 311;

    public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Warning;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        ArgumentNullException.ThrowIfNull(formatter);
        if (!IsEnabled(logLevel) || eventId.Id is RegionFailedEvent or LockFailedEvent)
        {
            return;
        }

        string message = formatter(state, exception);
        if (exception is not null)
        {
            message += $" ({exception.GetType().Name}: {exception.Message})";
        }

        lock (error)
        {
            error.WriteLine($"{CliApp.Name}: warning: {SafeText.EscapeMessage(message)}");
        }
    }
}
