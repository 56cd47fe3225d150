using System.Text;

namespace Sharpi.Prefault.Cli.Output;

/// <summary>
/// stdout, with a failed write (closed with <c>&gt;&amp;-</c>, a full disk, a reader that went away) turned into one
/// <see cref="OutputUnavailableException"/> the tool reports as such, instead of whatever the stream threw.
/// </summary>
internal sealed class StdoutWriter(TextWriter inner) : TextWriter
{
    public override Encoding Encoding => inner.Encoding;

    public override void Write(char value) => Guard(() => inner.Write(value));

    public override void Write(string? value) => Guard(() => inner.Write(value));

    public override void Write(char[] buffer, int index, int count) => Guard(() => inner.Write(buffer, index, count));

    public override void WriteLine(string? value) => Guard(() => inner.WriteLine(value));

    public override void Flush() => Guard(inner.Flush);

    public override Task WriteLineAsync(string? value)
    {
        WriteLine(value);
        return Task.CompletedTask;
    }

    public override Task FlushAsync(CancellationToken cancellationToken)
    {
        Flush();
        return Task.CompletedTask;
    }

    private static void Guard(Action write)
    {
        try
        {
            write();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ObjectDisposedException)
        {
            throw new OutputUnavailableException(e.Message, e);
        }
    }
}

/// <summary>stdout cannot be written: closed, full, or its reader gone.</summary>
internal sealed class OutputUnavailableException(string message, Exception inner) : IOException(message, inner);
