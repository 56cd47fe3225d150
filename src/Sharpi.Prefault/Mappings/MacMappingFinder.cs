using System.Text;

namespace Sharpi.Prefault;

/// <summary>Finds mappings on macOS: mach_vm_region, named by proc_regionfilename, matched by stat.</summary>
[SupportedOSPlatform("macos")]
internal static class MacMappingFinder
{
    private const int VmProtRead = 1;

    /// <inheritdoc cref="MappingFinder.Find"/>
    internal static unsafe List<MappedRange>[] Find(FileIdentity[] files)
    {
        Dictionary<FileIdentity, List<int>> byIdentity = MappingFinder.Group(files, static f => f, out List<MappedRange>[] found);

        var pathIdentities = new Dictionary<string, FileIdentity?>(StringComparer.Ordinal);
        uint task = Interop.Libc.MachTaskSelf();
        int pid = Environment.ProcessId;
        byte* name = stackalloc byte[Interop.OSXConstants.MAXPATHLEN];
        ulong address = 0;
        while (true)
        {
            ulong size = 0;
            Interop.Libc.VmRegionBasicInfo64 info;
            uint count = Interop.OSXConstants.VM_REGION_BASIC_INFO_COUNT_64;
            uint objectName;
            if (Interop.Libc.MachVmRegion(task, &address, &size, Interop.OSXConstants.VM_REGION_BASIC_INFO_64, &info, &count, &objectName)
                != Interop.OSXConstants.KERN_SUCCESS)
            {
                break;
            }

            if ((info.Protection & VmProtRead) != 0)
            {
                int length = Interop.Libc.ProcRegionFilename(pid, address, name, Interop.OSXConstants.MAXPATHLEN);
                if (length > 0
                    && MappingFinder.IdentityOfPath(Encoding.UTF8.GetString(name, length), pathIdentities) is { } mapped
                    && byIdentity.TryGetValue(mapped, out List<int>? matches))
                {
                    foreach (int file in matches)
                    {
                        MappingFinder.AddMerged(found[file], new MappedRange((nint)address, (nint)(address + size), file, (long)info.Offset));
                    }
                }
            }

            if (address + size <= address)
            {
                break;
            }

            address += size;
        }

        return found;
    }
}
