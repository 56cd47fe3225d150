namespace Sharpi.Prefault;

/// <summary>A system call on a file failed; <see cref="Error"/> names the call and its error number.</summary>
internal sealed class PlatformCallException : IOException
{
    internal PlatformCallException(PlatformError error, string path, string? detail = null)
        : base($"'{path}': {Describe(error, detail)}", error.Code)
    {
        Error = error;
        Path = path;
        Reason = Describe(error, detail);
    }

    /// <summary>The call that failed and its error number.</summary>
    internal PlatformError Error { get; }

    /// <summary>The file it was called on.</summary>
    internal string Path { get; }

    /// <summary>The failure without the path: the call, its error, and what it means here (for a line that names the file already).</summary>
    internal string Reason { get; }

    private static string Describe(PlatformError error, string? detail) => detail is null ? $"{error}." : $"{error}: {detail}";
}
