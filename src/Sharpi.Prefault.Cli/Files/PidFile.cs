using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// <c>lock --pidfile</c>'s file: this process's id, placed whole (never half-written) and never over another lock's;
/// held open, with a lock on the file itself, for the process's life; removed only if it is still the very file this
/// process wrote (same device and inode) and still holds this process's id, so the tool never deletes what it did not
/// write (a device such as <c>/dev/full</c>, someone's read-only file, or a pid file another lock has taken over since).
/// </summary>
internal sealed class PidFile
{
    /// <summary>The extended attribute that records the writer's pid namespace (<c>pid:[INODE]</c>, as /proc/PID/ns/pid reads).</summary>
    internal const string NamespaceAttribute = "user.sharpi-prefault.pidns";

    /// <summary>A pid file is a number and a newline; anything longer is some other file.</summary>
    private const int MaxPidFileBytes = 32;

    private readonly SafeFileHandle _handle;
    private readonly FileStatus _key;

    private PidFile(string path, SafeFileHandle handle, FileStatus key)
    {
        Path = path;
        _handle = handle;
        _key = key;
    }

    public string Path { get; }

    private static string Content => Environment.ProcessId.ToString(CultureInfo.InvariantCulture) + "\n";

    /// <summary>This process's pid namespace (<c>pid:[4026531836]</c>); null where there is none to read (not Linux, no /proc).</summary>
    private static string? OwnNamespace { get; } = ReadOwnNamespace();

    /// <summary>Why <paramref name="path"/> cannot be this lock's pid file now (a live lock holds it, or it is not a pid file); null when it can.</summary>
    public static string? WhyNotClaimable(string path)
    {
        string? refusal = Inspect(path, claim: false, out Existing? existing, out _);
        existing?.Handle.Dispose();
        return refusal;
    }

    /// <summary>
    /// Places the pid file at <paramref name="path"/>, holding this process's id and its lock (taking over a stale pid
    /// file). Null, with the reason in <paramref name="refusal"/>, when the path is not this process's to write.
    /// </summary>
    public static PidFile? Claim(string path, out string? refusal)
    {
        // A few rounds: when a file appeared, went, or was replaced between the look and the placing, look again.
        for (int attempt = 0; attempt < 3; attempt++)
        {
            refusal = Inspect(path, claim: true, out Existing? stale, out bool lookAgain);
            if (refusal is not null)
            {
                return null;
            }

            if (lookAgain)
            {
                continue;
            }

            using (stale?.Handle)
            {
                PidFile? placed = Place(path, stale, out refusal);
                if (placed is not null || refusal is not null)
                {
                    return placed;
                }
            }
        }

        refusal = "it kept changing while being claimed (another lock starting with the same --pidfile?); nothing was written.";
        return null;
    }

    /// <summary>
    /// Removes the pid file if it is still the one this process wrote and still holds this process's id; otherwise
    /// leaves it (it was replaced, or rewritten) and says why in <paramref name="leftBecause"/>.
    /// </summary>
    public bool Release(out string? leftBecause)
    {
        leftBecause = null;
        using (_handle)
        {
            try
            {
                FileStatus key = PathCheck.OfLink(Path).Status;
                if (key.Kind == FileKind.Missing)
                {
                    return false; // removed by someone else: nothing to do
                }

                if (key.Kind != FileKind.Regular || (_key.HasIdentity && key.Identity != _key.Identity) || ReadSmall(_handle) != Content)
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
    }

    /// <summary>
    /// Null when <paramref name="path"/> is absent or a stale pid file (then <paramref name="existing"/> holds it open,
    /// locked when <paramref name="claim"/>); otherwise why this lock may not write it.
    /// </summary>
    private static string? Inspect(string path, bool claim, out Existing? existing, out bool lookAgain)
    {
        existing = null;
        lookAgain = false;
        if (CommandLineBytes.WasNotUtf8(path))
        {
            // .NET's text of it (U+FFFD for the bad bytes) may be the name of another file: never write or remove that one.
            return "its name is not valid UTF-8, and the text .NET makes of it may name another file; nothing is written or removed. "
                + "Choose a --pidfile whose name is valid UTF-8.";
        }

        PathCheck check = PathCheck.OfLink(path);
        if (check.IsUnusable)
        {
            return check.Refusal;
        }

        if (KindRefusal(check.Kind) is string notAPidFile)
        {
            return notAPidFile;
        }

        if (check.Kind == FileKind.Missing)
        {
            return DirectoryOf(path) is string directory && !Directory.Exists(directory)
                ? $"its directory {directory} does not exist; nothing was written."
                : null;
        }

        SafeFileHandle? handle = null;
        try
        {
            handle = OpenExisting(path, claim, out int errno);
            if (handle is null)
            {
                return errno switch
                {
                    global::Interop.LinuxConstants.ENOENT => null, // gone since the look: free to create
                    ELOOP => KindRefusal(FileKind.Symlink),
                    _ => $"exists and cannot be opened ({Marshal.GetPInvokeErrorMessage(errno)}); it is neither written nor removed. Choose another --pidfile.",
                };
            }

            FileStatus status = FileStatus.Of(handle);
            if (KindRefusal(status.Kind) is string replaced)
            {
                return replaced; // a FIFO or device renamed in since the look: opened without blocking, and left
            }

            LockState state = LockFile(handle, take: claim, out int lockErrno);
            string? content = ReadSmall(handle);
            string? writerNamespace = ReadNamespace(handle);
            bool isPid = TryParsePid(content, out int pid);
            if (state == LockState.Held)
            {
                return HeldRefusal(isPid ? pid : null, writerNamespace);
            }

            if (!isPid)
            {
                return "exists and does not hold a process id (it is not a pid file this tool wrote); it is neither written nor removed. "
                    + "Remove it, or choose another --pidfile.";
            }

            if (state == LockState.Unsupported && UnjudgedRefusal(pid, writerNamespace, lockErrno) is string unjudged)
            {
                return unjudged;
            }

            if (state == LockState.Free && UnlockedLiveRefusal(pid, writerNamespace) is string unlocked)
            {
                return unlocked;
            }

            // Stale, but only replaced where this user could write it anyway: a read-only file is not this lock's to replace.
            if (!claim && WhyNotWritable(path) is string notWritable)
            {
                return $"holds the id of process {pid}, which no longer runs, but this user cannot write it ({notWritable}); "
                    + "it is neither written nor removed. Remove it, or choose another --pidfile.";
            }

            if (claim && PathCheck.OfLink(path).Status is var now && (now.Kind != FileKind.Regular || (status.HasIdentity && now.Identity != status.Identity)))
            {
                lookAgain = true; // replaced between the open and the lock: the lock holds a file no longer at the path
                return null;
            }

            existing = new Existing(handle, status, pid);
            handle = null;
            return null;
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            return $"exists and cannot be read ({FileErrors.Describe(e).TrimEnd('.')}); it is neither written nor removed. Choose another --pidfile.";
        }
        finally
        {
            handle?.Dispose();
        }
    }

    /// <summary>
    /// Writes this lock's file aside (created exclusively, locked, its namespace recorded), then puts it at the path: by
    /// a link that fails if a file appeared there, or, over a <paramref name="stale"/> file whose lock this process
    /// holds, by a rename once the path still names it. Null with no refusal: the path changed, look again.
    /// </summary>
    private static PidFile? Place(string path, Existing? stale, out string? refusal)
    {
        refusal = null;
        string aside = $"{path}.{Environment.ProcessId.ToString(CultureInfo.InvariantCulture)}-{Random.Shared.Next():x8}.new";
        SafeFileHandle handle;
        try
        {
            handle = CreateExclusive(aside);
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            refusal = $"cannot be created ({FileErrors.Describe(e).TrimEnd('.')}); nothing was written.";
            return null;
        }

        bool placed = false;
        try
        {
            // A file system that refuses locks leaves the file judged by its id and namespace (see UnjudgedRefusal).
            LockFile(handle, take: true, out _);
            WriteNamespace(handle);
            RandomAccess.Write(handle, Encoding.ASCII.GetBytes(Content), 0);
            FileStatus key = FileStatus.Of(handle);
            if (stale is null)
            {
                try
                {
                    File.Move(aside, path, overwrite: false); // link(2): never over a file that appeared meanwhile
                }
                catch (IOException) when (PathCheck.OfLink(path).Kind != FileKind.Missing)
                {
                    return null; // another file is there now: look again
                }
            }
            else
            {
                FileStatus now = PathCheck.OfLink(path).Status;
                if (now.Kind != FileKind.Regular || (stale.Status.HasIdentity && now.Identity != stale.Status.Identity))
                {
                    return null; // the stale file was replaced meanwhile: look again
                }

                File.Move(aside, path, overwrite: true); // rename(2): the stale file goes as this one arrives
            }

            placed = true;
            return new PidFile(path, handle, key);
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            refusal = stale is null
                ? $"cannot be written ({FileErrors.Describe(e).TrimEnd('.')}); nothing was written."
                : $"holds the id of process {stale.Pid}, which no longer runs, but cannot be replaced ({FileErrors.Describe(e).TrimEnd('.')}); nothing was written.";
            return null;
        }
        finally
        {
            if (!placed)
            {
                handle.Dispose();
                TryDelete(aside);
            }
        }
    }

    private static string? KindRefusal(FileKind kind)
    {
        string? what = kind switch
        {
            FileKind.Missing or FileKind.Regular => null,
            FileKind.Directory => "a directory",
            FileKind.Fifo => "a FIFO",
            FileKind.Socket => "a socket",
            FileKind.Symlink => "a symbolic link",
            _ => "a device",
        };
        return what is null ? null : $"is {what}, not a pid file; it is neither written nor removed. Choose another --pidfile.";
    }

    private static string HeldRefusal(int? pid, string? writerNamespace)
    {
        const string Refused = "refused before locking anything.";
        if (pid is not int holder)
        {
            return $"is locked by a running process (a lock with this pid file, still writing it?); {Refused} Choose another --pidfile.";
        }

        // The namespace is recorded where the file system keeps user attributes; without it, an id that names no process
        // here while the file's lock is held is a lock of another namespace all the same.
        bool elsewhere = OwnNamespace is not null
            && (writerNamespace is not null ? writerNamespace != OwnNamespace : holder != Environment.ProcessId && !IsRunning(holder));
        if (elsewhere)
        {
            return $"held by process {holder} of another pid namespace ({writerNamespace ?? "not recorded"}; this one is {OwnNamespace}), which is running: "
                + $"it holds the file's lock (another container or unshare with this pid file?); {Refused} "
                + "Stop it where it runs, or choose another --pidfile.";
        }

        return $"held by process {holder}, which is running (another lock with this pid file holds its lock); {Refused} "
            + $"Stop it first (kill {holder}), or choose another --pidfile.";
    }

    /// <summary>
    /// Where the file system refuses locks: null when the id can judge the file (written in this pid namespace, and that
    /// process is gone); otherwise why it is refused.
    /// </summary>
    private static string? UnjudgedRefusal(int pid, string? writerNamespace, int lockErrno)
    {
        bool sameNamespace = OperatingSystem.IsLinux() ? writerNamespace is not null && writerNamespace == OwnNamespace : writerNamespace is null;
        if (!sameNamespace)
        {
            string where = writerNamespace is null ? "records no pid namespace" : $"was written in pid namespace {writerNamespace}, not this one ({OwnNamespace})";
            return $"holds the id of process {pid} and cannot be judged from here: its file system refuses file locks "
                + $"({Marshal.GetPInvokeErrorMessage(lockErrno)}), and it {where}, so process {pid} may be running elsewhere; "
                + "it is neither taken over nor removed. Remove it if no lock runs, or choose another --pidfile.";
        }

        // This process's own id in a file it has not claimed is stale: a lock that died, whose id this process was given
        // again (containers reuse small ids on every start).
        return pid != Environment.ProcessId && IsRunning(pid)
            ? $"held by process {pid}, which is running (another lock with this pid file?); refused before locking anything. "
                + $"Stop it first (kill {pid}), or choose another --pidfile."
            : null;
    }

    /// <summary>
    /// Where the file's lock is free: null when that proves its writer gone; otherwise why it is refused.
    /// </summary>
    private static string? UnlockedLiveRefusal(int pid, string? writerNamespace) =>
        writerNamespace is null && pid != Environment.ProcessId && IsRunning(pid)
            ? $"holds the id of process {pid}, which is running, but not the file's lock (a lock of an older sharpi-prefault, "
                + "which held none, or another program's pid file?); it is neither taken over nor removed. "
                + $"Stop it first (kill {pid}) if it is a lock, remove the file if it is not, or choose another --pidfile."
            : null;

    private static bool TryParsePid(string? content, out int pid)
    {
        pid = 0;
        if (content is null)
        {
            return false;
        }

        string trimmed = content.Trim();
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

    /// <summary>A small regular file's text, read through its descriptor; null when it is larger than a pid file can be.</summary>
    private static string? ReadSmall(SafeFileHandle handle)
    {
        byte[] buffer = new byte[MaxPidFileBytes + 1];
        int read = RandomAccess.Read(handle, buffer, 0);
        return read > MaxPidFileBytes ? null : Encoding.ASCII.GetString(buffer, 0, read);
    }

    private static string? WhyNotWritable(string path)
    {
        try
        {
            using SafeFileHandle writable = OpenExisting(path, write: true, out int errno)
                ?? throw new IOException(Marshal.GetPInvokeErrorMessage(errno));
            return null;
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            return FileErrors.Describe(e).TrimEnd('.');
        }
    }

    private static void TryDelete(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            // Left: a file named *.new beside the pid file, which no lock judges.
        }
    }

    private static string? DirectoryOf(string path) =>
        System.IO.Path.GetDirectoryName(System.IO.Path.GetFullPath(path)) is { Length: > 0 } directory ? directory : null;

    private static string? ReadOwnNamespace()
    {
        try
        {
            return OperatingSystem.IsLinux() ? new FileInfo("/proc/self/ns/pid").LinkTarget : null;
        }
        catch (Exception e) when (FileErrors.IsExpected(e))
        {
            return null;
        }
    }

    // The opens below are the pid file's own: never blocking on a FIFO renamed in, never following a planted symlink,
    // and checked by fstat to be a regular file before anything is read or written.

    /// <summary>
    /// Opens an existing <paramref name="path"/> (read, or read and write) without following a symlink and without
    /// blocking; null with the errno when the open fails.
    /// </summary>
    private static SafeFileHandle? OpenExisting(string path, bool write, out int errno)
    {
        errno = 0;
        if (!OperatingSystem.IsLinux())
        {
            // Elsewhere the runtime's open (checked by the PathCheck before it), and no lock: judged by the id alone.
            return File.OpenHandle(path, FileMode.Open, write ? FileAccess.ReadWrite : FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        }

        return FileOpener.TryOpenKept(path, (write ? O_RDWR : global::Interop.LinuxConstants.O_RDONLY) | ONoFollow, 0, out errno);
    }

    /// <summary>Creates <paramref name="path"/> exclusively (O_CREAT|O_EXCL: never through a symlink), readable by all, writable by its owner.</summary>
    private static SafeFileHandle CreateExclusive(string path)
    {
        if (!OperatingSystem.IsLinux())
        {
            return File.OpenHandle(path, FileMode.CreateNew, FileAccess.ReadWrite, FileShare.Read);
        }

        return FileOpener.TryOpenKept(path, O_RDWR | O_CREAT | O_EXCL | ONoFollow, 0b110_100_100, out int errno)
            ?? throw new IOException($"{Marshal.GetPInvokeErrorMessage(errno)} : '{path}'", errno);
    }

    /// <summary>
    /// Takes (or, without <paramref name="take"/>, only tests for) a write lock on the whole file, an OFD lock: held by the
    /// open file description, dropped by the kernel when the last descriptor closes, whatever ends the process.
    /// </summary>
    private static unsafe LockState LockFile(SafeFileHandle handle, bool take, out int errno)
    {
        errno = 0;
        if (!OperatingSystem.IsLinux())
        {
            return LockState.Unsupported;
        }

        var request = new global::Interop.Libc.FileLock { Type = F_WRLCK, Whence = 0, Start = 0, Length = 0 };
        if (global::Interop.Libc.Fcntl(handle, take ? F_OFD_SETLK : F_OFD_GETLK, &request) != 0)
        {
            errno = Marshal.GetLastPInvokeError();
            return errno is global::Interop.LinuxConstants.EAGAIN or global::Interop.LinuxConstants.EACCES ? LockState.Held : LockState.Unsupported;
        }

        return take || request.Type == F_UNLCK ? LockState.Free : LockState.Held;
    }

    /// <summary>The writer's pid namespace, from <see cref="NamespaceAttribute"/>; null where none was recorded or can be read.</summary>
    private static unsafe string? ReadNamespace(SafeFileHandle handle)
    {
        if (!OperatingSystem.IsLinux())
        {
            return null;
        }

        byte* value = stackalloc byte[64];
        nint length = Interop.Libc.Fgetxattr(handle, NamespaceAttribute, value, 64);
        return length is > 0 and <= 64 ? Encoding.ASCII.GetString(value, (int)length) : null;
    }

    /// <summary>Records this process's pid namespace on the file, where the file system keeps user attributes (best effort).</summary>
    private static unsafe void WriteNamespace(SafeFileHandle handle)
    {
        if (!OperatingSystem.IsLinux() || OwnNamespace is null)
        {
            return;
        }

        byte[] bytes = Encoding.ASCII.GetBytes(OwnNamespace);
        fixed (byte* value = bytes)
        {
            _ = Interop.Libc.Fsetxattr(handle, NamespaceAttribute, value, (nuint)bytes.Length, 0);
        }
    }

    /// <summary>An existing stale pid file, open (and locked, when claimed), with the status of that descriptor.</summary>
    private sealed record Existing(SafeFileHandle Handle, FileStatus Status, int Pid);

    private enum LockState
    {
        Free,
        Held,
        Unsupported,
    }

    // Linux values (x86-64, arm64 and asm-generic agree, except O_NOFOLLOW).
    private const int O_RDWR = 0x2;
    private const int O_CREAT = 0x40;
    private const int O_EXCL = 0x80;
    private const int F_OFD_GETLK = 36;
    private const int F_OFD_SETLK = 37;
    private const short F_WRLCK = 1;
    private const short F_UNLCK = 2;
    private const int ELOOP = 40;

    /// <summary>0100000 octal on arm, arm64 and powerpc; 0400000 on x86 and the asm-generic architectures.</summary>
    private static int ONoFollow => RuntimeInformation.ProcessArchitecture is Architecture.Arm64 or Architecture.Arm or Architecture.Ppc64le
        ? 0x8000
        : 0x20000;
}
