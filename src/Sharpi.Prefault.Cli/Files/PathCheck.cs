namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// What a path names, told by the library's <see cref="FileStatus"/> (stat, never open: opening a FIFO for reading
/// blocks until a writer comes), and why the tool cannot work on it, in the tool's words.
/// </summary>
/// <param name="Status">The library's status of the path: kind, identity (device and inode, Linux) and length.</param>
/// <param name="Errno">Why stat could not see the path (Linux); 0 when it could, or where the platform does not say.</param>
/// <param name="IsInvalid">The path is empty or holds a NUL character: no file has such a name.</param>
/// <param name="IsNotUtf8">Not found by a name that holds U+FFFD, what .NET makes of bytes that are not valid UTF-8.</param>
internal readonly record struct PathCheck(FileStatus Status, int Errno, bool IsInvalid, bool IsNotUtf8)
{
    private const int ENOENT = 2;
    private const int ENOTDIR = 20;
    private const int EACCES = 13;
    private const int ENAMETOOLONG = 36;
    private const int ELOOP = 40;

    /// <summary>What <paramref name="path"/> names, following symlinks as open would.</summary>
    public static PathCheck Of(string path) => Of(path, followLinks: true);

    /// <summary>What <paramref name="path"/> itself is: a symlink is <see cref="FileKind.Symlink"/>, not what it points at.</summary>
    public static PathCheck OfLink(string path) => Of(path, followLinks: false);

    public FileKind Kind => Status.Kind;

    /// <summary>Stat could not see the path for a reason other than its absence: the path exists but cannot be used.</summary>
    public bool IsUnusable => IsInvalid || IsNotUtf8 || Errno is not (0 or ENOENT or ENOTDIR);

    /// <summary>What the kernel's ENAMETOOLONG means, and the way round it (symlinks are followed).</summary>
    public const string TooLongMessage =
        "path too long (ENAMETOOLONG): longer than PATH_MAX (4096 bytes) or a component longer than NAME_MAX (255 bytes); "
        + "name the file by a shorter path, such as a symlink to it or to a directory nearer it.";

    /// <summary>
    /// Linux file names are bytes; .NET turns those that are not valid UTF-8 into U+FFFD (shown as \ufffd), and a name
    /// so changed no longer opens the file. Such a file is named, never skipped in silence.
    /// </summary>
    public const string NotUtf8Message =
        "cannot be used: its name is not valid UTF-8 (printed as U+FFFD escapes: the bytes that are not), and .NET cannot open a file by such a name; "
        + "rename it to valid UTF-8 (convmv, or mv with a shell glob) to use it.";

    /// <summary>Why a path like this cannot be worked on; null for a regular file.</summary>
    public string? Refusal => this switch
    {
        { IsInvalid: true } => "not a valid path (empty, or holds a NUL character).",
        { IsNotUtf8: true } => NotUtf8Message,
        { Errno: EACCES } => "permission denied.",
        { Errno: ENAMETOOLONG } => TooLongMessage,
        { Errno: ELOOP } => "too many levels of symbolic links (ELOOP): a symlink loop, or a chain longer than the kernel follows.",
        _ => Kind switch
        {
            FileKind.Regular => null,
            FileKind.Missing => "no such file.",
            FileKind.Directory => "is a directory; pass -r to work on the files in it.",
            FileKind.Fifo => "is a FIFO, not a regular file; refused (reading it would block until a writer comes).",
            FileKind.Socket => "is a socket, not a regular file; refused.",
            FileKind.Symlink => "is a symbolic link.",
            _ => "is a device, not a regular file; refused.",
        },
    };

    private static PathCheck Of(string path, bool followLinks)
    {
        if (path.Length == 0 || path.Contains('\0', StringComparison.Ordinal))
        {
            return new PathCheck(default, 0, IsInvalid: true, IsNotUtf8: false);
        }

        FileStatus status = FileStatus.Of(path, followLinks, out int errno);
        bool notUtf8 = status.Kind == FileKind.Missing && errno == ENOENT && path.Contains('\uFFFD', StringComparison.Ordinal);
        return new PathCheck(status, errno, IsInvalid: false, notUtf8);
    }
}
