using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault.Tests.DirectIO;

/// <summary>The reference every Direct read is checked against: a plain buffered read of the same range.</summary>
internal static class BufferedReference
{
    /// <summary>The bytes a buffered read finds at [offset, offset + length), fewer where the file ends.</summary>
    public static byte[] Read(string path, long offset, int length)
    {
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, 1, FileOptions.None);
        var bytes = new byte[length];
        int done = 0;
        while (done < length)
        {
            int n = RandomAccess.Read(stream.SafeFileHandle, bytes.AsSpan(done), offset + done);
            if (n == 0)
            {
                break;
            }

            done += n;
        }

        return bytes[..done];
    }

    /// <summary>Reads [offset, offset + length) with the reader and asserts it returns all of it, byte for byte as a buffered read.</summary>
    public static void AssertReadMatches(DirectFileReader reader, long offset, int length)
    {
        var destination = new byte[length];

        int read = reader.Read(offset, destination);

        Assert.Equal(length, read);
        Assert.Equal(Read(reader.Path, offset, length), destination);
    }
}

/// <summary>Keeps what was logged, for asserting on event ids.</summary>
internal sealed class RecordingLogger : ILogger
{
    private readonly List<(EventId Id, string Message)> _entries = [];

    public IReadOnlyList<(EventId Id, string Message)> Entries
    {
        get
        {
            lock (_entries)
            {
                return [.. _entries];
            }
        }
    }

    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => true;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        lock (_entries)
        {
            _entries.Add((eventId, formatter(state, exception)));
        }
    }
}
