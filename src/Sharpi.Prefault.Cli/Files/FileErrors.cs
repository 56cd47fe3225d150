
namespace Sharpi.Prefault.Cli.Files;

/// <summary>The failures a file can cause that are the user's to fix, in words: never a stack trace.</summary>
internal static class FileErrors
{
    private const int TooManyOpenFiles = 24; // EMFILE: .NET's IOException carries the errno as its HResult on Unix

    /// <summary>
    /// A failure of the file being worked on. stdout's own failure (<see cref="Output.OutputUnavailableException"/>, an
    /// IOException too) is not one: it must not be blamed on the model file whose line could not be printed.
    /// </summary>
    public static bool IsExpected(Exception e) =>
        e is (IOException and not Output.OutputUnavailableException) or UnauthorizedAccessException or ModelFormatException or NotSupportedException or PlatformNotSupportedException;

    /// <param name="e">The failure.</param>
    /// <param name="subject">
    /// The file the message will be printed after (<c>sharpi-prefault: FILE: message</c>): a model error about that same
    /// file leaves out its path rather than name the file twice. A shard's error keeps the shard's path.
    /// </param>
    public static string Describe(Exception e, string? subject = null) => e switch
    {
        ModelFormatException { FilePath: string file } model when subject is not null && IsSameFile(file, subject)
            && model.Message.StartsWith(file + ": ", StringComparison.Ordinal) => model.Message[(file.Length + 2)..],
        PathTooLongException => PathCheck.TooLongMessage,
        FileNotFoundException { FileName: string name } => $"no such file: {name}.",
        FileNotFoundException or DirectoryNotFoundException => "no such file.",
        IOException { HResult: TooManyOpenFiles } => "too many open files: the descriptor limit (ulimit -n) is reached.",
        // The library's errors name the call that failed: an mmap refused after the open succeeded is no "permission denied".
        PlatformCallException call => call.Reason,
        UnauthorizedAccessException { InnerException: PlatformCallException call } => $"{call.Error.Call}: permission denied.",
        UnauthorizedAccessException => "permission denied.",
        ModelFormatException model => model.Message,
        _ => e.Message,
    };

    private static bool IsSameFile(string a, string b)
    {
        try
        {
            return string.Equals(Path.GetFullPath(a), Path.GetFullPath(b), StringComparison.Ordinal);
        }
        catch (Exception e) when (e is ArgumentException or PathTooLongException or NotSupportedException or System.Security.SecurityException)
        {
            return false;
        }
    }
}
