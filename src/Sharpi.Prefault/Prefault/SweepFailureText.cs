namespace Sharpi.Prefault;

/// <summary>What a failed populate or touch means, in words, told after the sweep from where it stopped.</summary>
internal static class SweepFailureText
{
    /// <summary>The text for <paramref name="error"/> where a sweep stopped at <paramref name="address"/>; <paramref name="maps"/> may be empty.</summary>
    internal static string Describe(PlatformError error, nint address, ProcMapEntry[] maps)
    {
        if (OperatingSystem.IsLinux() && error.Kind == PlatformErrorKind.Errno)
        {
            if (error.Code == Interop.LinuxConstants.EFAULT && MappingOf(address, maps) is ProcMapEntry m && m.IsFileBacked
                && (m.IsDeleted ? DescribeDeletedFault(m) : DescribeFault(m, address)) is string fault)
            {
                return $"{fault}; the sweep stopped there instead of a fatal SIGBUS ({error})";
            }

            if (error.Code == Interop.LinuxConstants.ENOMEM)
            {
                return PlatformMemory.IsReadable(address, address + 1, out _, out _)
                    ? $"out of memory: the kernel could not allocate the pages (a memory cgroup at its limit?) ({error})"
                    : $"not mapped any more ({error})";
            }

            if (error.Code == Interop.LinuxConstants.ENOSPC)
            {
                return $"no space left on the file's file system ({error})";
            }
        }

        return ChunkSweep.DescribeError(error);
    }

    /// <summary>Why a page of file mapping <paramref name="m"/> could not be faulted in; null where the file cannot be asked.</summary>
    [SupportedOSPlatform("linux")]
    private static unsafe string? DescribeFault(ProcMapEntry m, nint address)
    {
        using SafeFileHandle? file = FileCacheProbe.OpenIfSameFile(m.Path, m.Inode, out long length);
        if (file is null)
        {
            return null;
        }

        long offset = m.Offset + (Pages.Floor(address) - m.Start);
        if (offset >= Pages.Ceiling(length))
        {
            return $"pages past the end of the mapped file (truncated?): '{m.Path}' is {length:N0} bytes now, the page at offset {offset:N0}";
        }

        if (IsFull(file))
        {
            return $"no space left on the file system of '{m.Path}' (it is full): the page at offset {offset:N0} is inside the file "
                + "but a hole, and the file system (tmpfs) had no page left to give it";
        }

        return $"the page at offset {offset:N0} of '{m.Path}' ({length:N0} bytes) is inside the file, but the kernel could not read it in "
            + "(an I/O error, a hole the file system had no room for, or memory that ran out)";
    }

    /// <summary>Whether a deleted file's fault was its full file system, asked of its directory; null where unknown.</summary>
    [SupportedOSPlatform("linux")]
    private static string? DescribeDeletedFault(ProcMapEntry m)
    {
        string path = m.Path[..^" (deleted)".Length];
        string? directory = Path.GetDirectoryName(path);
        if (directory is null || FileStatus.TryOf(directory) is not { Kind: FileKind.Directory } status || status.Device != m.Device)
        {
            return null;
        }

        // O_NONBLOCK: a FIFO renamed over the directory since the stat must not block the open.
        using SafeFileHandle handle = Interop.Libc.Open(directory, Interop.LinuxConstants.O_RDONLY | Interop.LinuxConstants.O_CLOEXEC | Interop.LinuxConstants.O_NONBLOCK, 0);
        return !handle.IsInvalid && IsFull(handle)
            ? $"no space left on the file system of '{directory}' (it is full): a hole of the deleted file '{path}' had no page to be given "
                + "(or the page is past the file's end: a deleted file's length cannot be asked)"
            : null;
    }

    /// <summary>Whether the file system of <paramref name="file"/> has no free block left.</summary>
    [SupportedOSPlatform("linux")]
    private static unsafe bool IsFull(SafeFileHandle file)
    {
        Interop.Libc.StatfsBuffer fs;
        return Interop.Libc.Fstatfs(file, &fs) == 0 && fs.Blocks > 0 && fs.BlocksFree == 0;
    }

    private static ProcMapEntry? MappingOf(nint address, ProcMapEntry[] maps)
    {
        int i = AddressRanges.FirstEndingAfter<ProcMapEntry>(maps, address);
        return i < maps.Length && (nuint)maps[i].Start <= (nuint)address ? maps[i] : null;
    }
}
