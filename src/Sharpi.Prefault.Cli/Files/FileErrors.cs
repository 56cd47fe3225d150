
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

    public static string Describe(Exception e) => e switch
    {
        PathTooLongException => PathKinds.TooLongMessage,
        FileNotFoundException { FileName: string name } => $"no such file: {name}.",
        FileNotFoundException or DirectoryNotFoundException => "no such file.",
        IOException { HResult: TooManyOpenFiles } => "too many open files: the descriptor limit (ulimit -n) is reached.",
        UnauthorizedAccessException => "permission denied.",
        ModelFormatException model => model.Message,
        _ => e.Message,
    };
}
