using System.Diagnostics;
using System.Globalization;
using System.Text;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// <c>lock --pidfile</c>'s file: created exclusively, so a second lock never overwrites the first one's; removed only
/// if it is still the very file this process wrote (same device and inode) and still holds this process's id, so the
/// tool never deletes what it did not write (a device such as <c>/dev/full</c>, someone's read-only file, or a pid file
/// another lock has taken over since).
/// </summary>
/// <remarks>
/// An existing file is taken over only when it is a stale pid file: a regular file holding nothing but the id of a
/// process that no longer runs (a lock killed with SIGKILL, or a machine that rebooted). It is renamed aside, checked to
/// be the same file, deleted, and the pid file created afresh, exclusively: two locks taking over one stale file at the
/// same moment cannot both win. Anything else at the path (a live process's id, other content, a directory, a device,
/// a FIFO, a symlink) is refused, and left as it was.
/// </remarks>
internal sealed class PidFile
{
    /// <summary>A pid file is a number and a newline; anything longer is some other file.</summary>
    private const int MaxPidFileBytes = 32;

    private readonly FileStatus _key;

    private PidFile(string path, FileStatus key)
    {
        Path = path;
        _key = key;
    }

    public string Path { get; }

    private static string Content => Environment.ProcessId.ToString(CultureInfo.InvariantCulture) + "\n";

    /// <summary>Why <paramref name="path"/> cannot be this lock's pid file now (a live lock holds it, or it is not a pid file); null when it can.</summary>
    public static string? WhyNotClaimable(string path) => Inspect(path, out _, out _);

    /// <summary>
    /// Creates <paramref name="path"/> holding this process's id, exclusively (taking over a stale pid file first).
    /// Null, with the reason in <paramref name="refusal"/>, when the path is not this process's to write.
    /// </summary>
    public static PidFile? Claim(string path, out string? refusal)
    {
        // A few rounds: after a stale file is taken over, or when a file appeared between the look and the create, the
        // path is looked at again.
        for (int attempt = 0; attempt < 3; attempt++)
        {
            refusal = Inspect(path, out int stalePid, out FileStatus staleKey);
            if (refusal is not null)
            {
                return null;
            }

            if (stalePid != 0)
            {
                refusal = TakeOver(path, stalePid, staleKey);
                if (refusal is not null)
                {
                    return null;
                }

                continue;
            }

            if (TryCreate(path, out PidFile? created, out refusal))
            {
                return created;
            }

            if (refusal is not null)
            {
                return null;
            }
        }

        refusal = "it kept changing while being claimed (another lock starting with the same --pidfile?); nothing was written.";
        return null;
    }

    /// <summary>
    /// Removes the pid file if it is still the one this process wrote and still holds this process's id; otherwise leaves
    /// it (it was replaced, or rewritten) and says why in <paramref name="leftBecause"/>.
    /// </summary>
    public bool Release(out string? leftBecause)
    {
        leftBecause = null;
        try
        {
            FileStatus key = PathCheck.OfLink(Path).Status;
            if (key.Kind == FileKind.Missing)
            {
                return false; // removed by someone else: nothing to do
            }

            if (key.Kind != FileKind.Regular || (_key.HasIdentity && key.Identity != _key.Identity) || ReadSmall(Path) != Content)
            {
                leftBecause = "not removed: it is no longer the pid file this process wrote (replaced or rewritten since).";
                return false;
            }

            File.Delete(Path);
            return true;
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            leftBecause = $"not removed: {FileErrors.Describe(e)}";
            return false;
        }
    }

    /// <summary>
    /// Null when <paramref name="path"/> is absent or a stale pid file (then <paramref name="stalePid"/> and
    /// <paramref name="staleKey"/> name it); otherwise why this lock may not write it.
    /// </summary>
    private static string? Inspect(string path, out int stalePid, out FileStatus staleKey)
    {
        stalePid = 0;
        PathCheck check = PathCheck.OfLink(path);
        staleKey = check.Status;
        if (check.IsUnusable)
        {
            return check.Refusal;
        }

        FileKind kind = check.Kind;
        string? what = kind switch
        {
            FileKind.Missing or FileKind.Regular => null,
            FileKind.Directory => "a directory",
            FileKind.Fifo => "a FIFO",
            FileKind.Socket => "a socket",
            FileKind.Symlink => "a symbolic link",
            _ => "a device",
        };

        if (what is not null)
        {
            return $"is {what}, not a pid file; it is neither written nor removed. Choose another --pidfile.";
        }

        if (kind == FileKind.Missing)
        {
            return DirectoryOf(path) is string directory && !Directory.Exists(directory)
                ? $"its directory {directory} does not exist; nothing was written."
                : null;
        }

        string? content;
        try
        {
            content = ReadSmall(path);
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            return $"exists and cannot be read ({FileErrors.Describe(e).TrimEnd('.')}); it is neither written nor removed. Choose another --pidfile.";
        }

        if (content is null || !TryParsePid(content, out int pid))
        {
            return "exists and does not hold a process id (it is not a pid file this tool wrote); it is neither written nor removed. "
                + "Remove it, or choose another --pidfile.";
        }

        // This process's own id in a file it has not claimed is stale: a lock that died, whose id this process was given
        // again (containers reuse small ids on every start).
        if (pid != Environment.ProcessId && IsRunning(pid))
        {
            return $"held by process {pid}, which is running (another lock with this pid file?); refused before locking anything. "
                + $"Stop it first (kill {pid}), or choose another --pidfile.";
        }

        // Stale, but only replaced where this user could write it anyway: a read-only file is not this lock's to replace.
        try
        {
            using SafeFileHandle writable = File.OpenHandle(path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete);
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            return $"holds the id of process {pid}, which no longer runs, but this user cannot write it ({FileErrors.Describe(e).TrimEnd('.')}); "
                + "it is neither written nor removed. Remove it, or choose another --pidfile.";
        }

        stalePid = pid;
        return null;
    }

    /// <summary>
    /// Moves a stale pid file aside and deletes it, if what was moved is still that file; null when the path is free to
    /// create (or changed meanwhile: look again), otherwise why not.
    /// </summary>
    private static string? TakeOver(string path, int stalePid, FileStatus staleKey)
    {
        string aside = $"{path}.stale-{Environment.ProcessId.ToString(CultureInfo.InvariantCulture)}";
        try
        {
            File.Move(path, aside, overwrite: true);
        }
        catch (FileNotFoundException)
        {
            return null; // gone already (another lock took it over, or its owner removed it): look again
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            return $"holds the id of process {stalePid}, which no longer runs, but cannot be replaced ({FileErrors.Describe(e).TrimEnd('.')}); nothing was written.";
        }

        FileStatus moved = PathCheck.OfLink(aside).Status;
        bool same = moved.Kind == FileKind.Regular
            && (!staleKey.HasIdentity || moved.Identity == staleKey.Identity)
            && TryParsePid(ReadSmallOrEmpty(aside), out int movedPid) && movedPid == stalePid;
        if (same)
        {
            File.Delete(aside);
            return null;
        }

        // Another lock replaced the stale file between the look and the move: put its file back, and leave the path to it.
        try
        {
            File.Move(aside, path, overwrite: false);
            return "another lock claimed it at the same moment; refused.";
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            return $"another lock claimed it at the same moment; its file could not be put back and is at {aside}.";
        }
    }

    /// <summary>Creates the file exclusively (O_CREAT|O_EXCL) and writes this process's id; false when it exists now (look again) or with a refusal.</summary>
    private static bool TryCreate(string path, out PidFile? created, out string? refusal)
    {
        created = null;
        refusal = null;
        SafeFileHandle handle;
        try
        {
            handle = File.OpenHandle(path, FileMode.CreateNew, FileAccess.Write, FileShare.Read);
        }
        catch (IOException) when (PathCheck.OfLink(path).Kind != FileKind.Missing)
        {
            return false; // created by someone else since the look: look again
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            refusal = $"cannot be created ({FileErrors.Describe(e).TrimEnd('.')}); nothing was written.";
            return false;
        }

        FileStatus key;
        using (handle)
        {
            key = FileStatus.Of(handle);
            try
            {
                RandomAccess.Write(handle, Encoding.ASCII.GetBytes(Content), 0);
                created = new PidFile(path, key);
                return true;
            }
            catch (Exception e) when (FileErrors.IsExpected(e))
            {
                refusal = $"cannot be written ({FileErrors.Describe(e).TrimEnd('.')}); the empty file this process created was removed.";
            }
        }

        // This process created the file and could not fill it: remove it, as long as it is still that file.
        if (PathCheck.OfLink(path).Status is { Kind: FileKind.Regular } now && (!key.HasIdentity || now.Identity == key.Identity))
        {
            try
            {
                File.Delete(path);
            }
            catch (Exception e) when (FileErrors.IsExpected(e))
            {
                refusal = $"cannot be written, and the empty file this process created could not be removed ({FileErrors.Describe(e).TrimEnd('.')}).";
            }
        }

        return false;
    }

    private static bool TryParsePid(string content, out int pid)
    {
        string trimmed = content.Trim();
        pid = 0;
        return trimmed.Length is > 0 and <= 10
            && trimmed.All(char.IsAsciiDigit)
            && int.TryParse(trimmed, NumberStyles.None, CultureInfo.InvariantCulture, out pid)
            && pid > 0;
    }

    /// <summary>True while a process with this id exists (running, stopped, or a zombie not yet reaped).</summary>
    private static bool IsRunning(int pid)
    {
        try
        {
            using var process = Process.GetProcessById(pid);
            return !process.HasExited;
        }
        catch (ArgumentException)
        {
            return false; // no such process
        }
        catch (InvalidOperationException)
        {
            return false;
        }
#pragma warning disable CA1031 // Whatever stops the look (a process of another user on some platforms): count it as running, and refuse.
        catch (Exception)
#pragma warning restore CA1031
        {
            return true;
        }
    }

    /// <summary>A small regular file's text; null when it is larger than a pid file can be.</summary>
    private static string? ReadSmall(string path)
    {
        using SafeFileHandle handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        byte[] buffer = new byte[MaxPidFileBytes + 1];
        int read = RandomAccess.Read(handle, buffer, 0);
        return read > MaxPidFileBytes ? null : Encoding.ASCII.GetString(buffer, 0, read);
    }

    private static string ReadSmallOrEmpty(string path)
    {
        try
        {
            return ReadSmall(path) ?? string.Empty;
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            return string.Empty;
        }
    }

    private static string? DirectoryOf(string path) =>
        System.IO.Path.GetDirectoryName(System.IO.Path.GetFullPath(path)) is { Length: > 0 } directory ? directory : null;
}
