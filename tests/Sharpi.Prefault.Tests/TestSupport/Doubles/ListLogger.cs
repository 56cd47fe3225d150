using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>An ILogger that keeps every message, for tests that assert what was logged.</summary>
public sealed class ListLogger : ILogger
{
    public ConcurrentQueue<(LogLevel Level, string Message)> Entries { get; } = new();

    /// <summary>The event id of each message, in the order logged.</summary>
    public ConcurrentQueue<int> EventIds { get; } = new();

    /// <summary>The structured fields of each message (name to value, as the logger receives them), in the order logged.</summary>
    public ConcurrentQueue<IReadOnlyDictionary<string, object?>> Fields { get; } = new();

    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => true;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        Entries.Enqueue((logLevel, formatter(state, exception)));
        EventIds.Enqueue(eventId.Id);
        var fields = new Dictionary<string, object?>(StringComparer.Ordinal);
        if (state is IEnumerable<KeyValuePair<string, object?>> pairs)
        {
            foreach (KeyValuePair<string, object?> pair in pairs)
            {
                fields[pair.Key] = pair.Value;
            }
        }

        Fields.Enqueue(fields);
    }

    public IEnumerable<string> At(LogLevel level) => Entries.Where(e => e.Level == level).Select(e => e.Message);
}
