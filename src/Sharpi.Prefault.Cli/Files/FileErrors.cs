
namespace Sharpi.Prefault.Cli.Files;

/// <summary>The failures a file can cause that are the user's to fix, in words: never a stack trace.</summary>
internal static class FileErrors
{
    public static bool IsExpected(Exception e) =>
        e is IOException or UnauthorizedAccessException or ModelFormatException or NotSupportedException or PlatformNotSupportedException;

    public static string Describe(Exception e) => e switch
    {
        FileNotFoundException or DirectoryNotFoundException => "no such file.",
        UnauthorizedAccessException => "permission denied.",
        ModelFormatException model => model.Message,
        _ => e.Message,
    };
}
