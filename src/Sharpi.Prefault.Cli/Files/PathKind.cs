using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Cli.Files;

/// <summary>What a path names, told without opening it: opening a FIFO for reading blocks until a writer comes.</summary>
internal enum PathKind
{
    Missing,
    Regular,
    Directory,
    Fifo,
    Socket,
    Device,
    Unreadable,
    Invalid,
}

internal static class PathKinds
{
    private const int ENOENT = 2;
    private const int ENOTDIR = 20;
    private const int EACCES = 13;

    /// <summary>The kind of what <paramref name="path"/> names, following symlinks as open would.</summary>
    public static unsafe PathKind Of(string path)
    {
        if (path.Length == 0 || path.Contains('\0', StringComparison.Ordinal))
        {
            return PathKind.Invalid;
        }

        if (!OperatingSystem.IsLinux())
        {
            return Directory.Exists(path) ? PathKind.Directory : File.Exists(path) ? PathKind.Regular : PathKind.Missing;
        }

        Interop.Libc.StatxBuffer stat;
        if (Interop.Libc.Statx(Interop.Libc.AT_FDCWD, path, 0, Interop.Libc.STATX_TYPE, &stat) != 0)
        {
            return Marshal.GetLastPInvokeError() switch
            {
                ENOENT or ENOTDIR => PathKind.Missing,
                EACCES => PathKind.Unreadable,
                _ => PathKind.Missing,
            };
        }

        return (stat.Mode & 0xF000) switch
        {
            0x8000 => PathKind.Regular,
            0x4000 => PathKind.Directory,
            0x1000 => PathKind.Fifo,
            0xC000 => PathKind.Socket,
            _ => PathKind.Device,
        };
    }

    /// <summary>Why a path of this kind cannot be worked on; null for a regular file.</summary>
    public static string? Refusal(PathKind kind) => kind switch
    {
        PathKind.Regular => null,
        PathKind.Missing => "no such file.",
        PathKind.Directory => "is a directory; pass -r to work on the files in it.",
        PathKind.Fifo => "is a FIFO, not a regular file; refused (reading it would block until a writer comes).",
        PathKind.Socket => "is a socket, not a regular file; refused.",
        PathKind.Device => "is a device, not a regular file; refused.",
        PathKind.Unreadable => "permission denied.",
        _ => "not a valid path (empty, or holds a NUL character).",
    };
}
