using System.Diagnostics;

namespace Sharpi.Prefault;

/// <summary>Finds views on Windows: VirtualQuery, named by K32GetMappedFileNameW, matched by file index.</summary>
[SupportedOSPlatform("windows")]
internal static class WindowsMappingFinder
{
    /// <inheritdoc cref="MappingFinder.Find"/>
    internal static unsafe List<MappedRange>[] Find(FileIdentity[] files)
    {
        Dictionary<FileIdentity, List<int>> byIdentity = MappingFinder.Group(files, static f => f, out List<MappedRange>[] found);

        var deviceIdentities = new Dictionary<string, FileIdentity?>(StringComparer.OrdinalIgnoreCase);
        char[] name = new char[short.MaxValue];
        using Process self = Process.GetCurrentProcess();
        SafeProcessHandle process = self.SafeHandle;
        Interop.Kernel32.MEMORY_BASIC_INFORMATION info;
        nuint address = 0;
        nint lastAllocation = 0;
        fixed (char* buffer = name)
        {
            while (Interop.Kernel32.VirtualQuery((void*)address, &info, (nuint)sizeof(Interop.Kernel32.MEMORY_BASIC_INFORMATION)) != 0)
            {
                if (info.Type == Interop.Kernel32.MEM_MAPPED && info.State == Interop.Kernel32.MEM_COMMIT
                    && (info.Protect & (Interop.Kernel32.PAGE_NOACCESS | Interop.Kernel32.PAGE_GUARD)) == 0)
                {
                    uint length = Interop.Kernel32.K32GetMappedFileName(process, info.BaseAddress, buffer, (uint)name.Length);
                    if (length > 0 && length < name.Length
                        && IdentityOfDevicePath(new string(buffer, 0, (int)length), deviceIdentities) is { } mapped
                        && byIdentity.TryGetValue(mapped, out List<int>? matches))
                    {
                        foreach (int file in matches)
                        {
                            var range = new MappedRange((nint)info.BaseAddress, (nint)info.BaseAddress + (nint)info.RegionSize, file, -1);
                            // No file offsets: a view's pieces merge by address alone.
                            List<MappedRange> ranges = found[file];
                            if (ranges.Count > 0 && ranges[^1].End == range.Start && lastAllocation == (nint)info.AllocationBase)
                            {
                                ranges[^1] = ranges[^1] with { End = range.End };
                            }
                            else
                            {
                                ranges.Add(range);
                            }
                        }

                        lastAllocation = (nint)info.AllocationBase;
                    }
                }

                nuint next = (nuint)info.BaseAddress + info.RegionSize;
                if (next <= address)
                {
                    break;
                }

                address = next;
            }
        }

        return found;
    }

    /// <summary>An open file's identity; null when unreadable.</summary>
    internal static unsafe FileIdentity? IdentityOf(SafeHandle file)
    {
        Interop.Kernel32.BY_HANDLE_FILE_INFORMATION information;
        if (!Interop.Kernel32.GetFileInformationByHandle(file, &information))
        {
            return null;
        }

        return new FileIdentity(information.VolumeSerialNumber, ((ulong)information.FileIndexHigh << 32) | information.FileIndexLow);
    }

    /// <summary>An NT device path's identity, opened with no access rights, cached.</summary>
    private static FileIdentity? IdentityOfDevicePath(string devicePath, Dictionary<string, FileIdentity?> cache)
    {
        if (!cache.TryGetValue(devicePath, out FileIdentity? identity))
        {
            using SafeFileHandle handle = Interop.Kernel32.CreateFile(Interop.Kernel32.GlobalRootPrefix + devicePath, 0,
                Interop.Kernel32.FILE_SHARE_READ | Interop.Kernel32.FILE_SHARE_WRITE | Interop.Kernel32.FILE_SHARE_DELETE, 0,
                Interop.Kernel32.OPEN_EXISTING, 0, 0);
            identity = handle.IsInvalid ? null : IdentityOf(handle);
            cache[devicePath] = identity;
        }

        return identity;
    }
}
