using System.Text;

namespace Sharpi.Prefault.Cli.Output;

/// <summary>
/// stdout, with a failed write (closed with <c>&gt;&amp;-</c>, a full disk, a reader that went away) turned into one
/// <see cref="OutputUnavailableException"/> the tool reports as such, instead of whatever the stream threw.
/// </summary>
internal sealed class StdoutWriter(TextWriter inner) : TextWriter
{
    /// <summary>
    /// The process's stdout: on Unix file descriptor 1 written directly (<see cref="StdoutStream"/>), so a reader
    /// that went away (EPIPE) is an error like a full disk; elsewhere <see cref="Console.Out"/>.
    /// </summary>
    public static StdoutWriter OpenStandardOutput()
    {
        if (OperatingSystem.IsLinux() || OperatingSystem.IsMacOS() || OperatingSystem.IsFreeBSD())
        {
            // Written through at every write (AutoFlush), as Console.Out is: a failure surfaces at the line that met it,
            // and nothing is left buffered to fail again at exit.
            return new StdoutWriter(new StreamWriter(new StdoutStream(), new UTF8Encoding(encoderShouldEmitUTF8Identifier: false)) { AutoFlush = true });
        }

        return new StdoutWriter(Console.Out);
    }

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
