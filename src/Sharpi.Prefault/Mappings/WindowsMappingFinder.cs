using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

/// <summary>
/// Finds a file's mapped views on Windows: walks this process's address space with VirtualQuery, asks
/// K32GetMappedFileNameW which file each mapped view shows, and matches that file's volume serial number and file index
/// (GetFileInformationByHandle) against the file's.
/// </summary>
[SupportedOSPlatform("windows")]
internal static class WindowsMappingFinder
{
    /// <summary>The readable mapped views of each file, in address order, pieces of one view merged.</summary>
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
                        var range = new MappedRange((nint)info.BaseAddress, (nint)info.BaseAddress + (nint)info.RegionSize, -1);
                        foreach (int file in matches)
                        {
                            // No file offsets: pieces of one view (one allocation) are merged by address alone.
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

    /// <summary>The volume serial number and file index of an open file; null when they cannot be read.</summary>
    internal static unsafe FileIdentity? IdentityOf(SafeHandle file)
    {
        Interop.Kernel32.BY_HANDLE_FILE_INFORMATION information;
        if (!Interop.Kernel32.GetFileInformationByHandle(file, &information))
        {
            return null;
        }

        return new FileIdentity(information.VolumeSerialNumber, ((ulong)information.FileIndexHigh << 32) | information.FileIndexLow);
    }

    /// <summary>Opens an NT device path (\Device\HarddiskVolume3\...) for its identity only (no access rights asked), cached per path.</summary>
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
