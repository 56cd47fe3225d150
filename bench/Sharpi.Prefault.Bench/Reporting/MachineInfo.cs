using System.Globalization;
using System.Runtime.InteropServices;
using System.Text.Json.Serialization;

namespace Sharpi.Prefault.Bench;

/// <summary>Where a result came from: the figures a reader needs to compare it with their own machine.</summary>
internal sealed record MachineInfo(string Cpu, int Cores, long MemoryBytes, string Kernel, string Os, string Runtime, string FileSystem,
    string TransparentHugePages, int PageSize)
{
    /// <summary>The disk holding the file (<c>vda</c>, <c>nvme0n1</c>), or null where its filesystem has none.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.Never)]
    public string? Device { get; init; }

    /// <summary>The disk's read_ahead_kb when the report was made (the run restores any value it set).</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.Never)]
    public int? ReadAheadKb { get; init; }

    /// <summary>The disk's max_sectors_kb: the largest request the block layer sends it.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.Never)]
    public int? MaxSectorsKb { get; init; }

    /// <summary>
    /// The hypervisor as the CPU names it: CPUID leaf 0x40000000's vendor signature and, where known, its product
    /// ("KVM (\"KVMKVMKVM\")"); null on bare metal and off x86.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.Never)]
    public string? Hypervisor { get; init; }

    /// <summary>Whether a virtio balloon reports free pages to the host, and at which order ("on, order 9"), or "off".</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.Never)]
    public string? FreePageReporting { get; init; }

    /// <summary>The DAMON schemes that run (<see cref="DamonSchemes.Describe"/>): action, minimum age, filters, quota; null where the kernel has no DAMON.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.Never)]
    public string? Damon { get; init; }

    internal static MachineInfo Current(string path)
    {
        BlockDevice device = BlockDevice.Of(path);
        return Create(path, device) with
        {
            Device = device.Name,
            ReadAheadKb = device.ReadAheadKb,
            MaxSectorsKb = device.MaxSectorsKb,
            Hypervisor = NameHypervisor(Sharpi.Prefault.Hypervisor.ReadSignature()),
            FreePageReporting = OperatingSystem.IsLinux() && Bench.FreePageReporting.IsActive()
                ? "on, order " + (BlockDevice.TryRead(Bench.FreePageReporting.OrderPath) ?? "?")
                : "off",
            Damon = DamonSchemes.Describe(),
        };
    }

    /// <summary>The signatures of the hypervisors a guest meets most, and their products.</summary>
    private static readonly Dictionary<string, string> s_hypervisors = new(StringComparer.Ordinal)
    {
        ["KVMKVMKVM"] = "KVM",
        ["Microsoft Hv"] = "Hyper-V",
        ["VMwareVMware"] = "VMware",
        ["XenVMMXenVMM"] = "Xen",
        ["bhyve bhyve "] = "bhyve",
        ["TCGTCGTCGTCG"] = "QEMU TCG",
        ["VBoxVBoxVBox"] = "VirtualBox",
        [" lrpepyh  vr"] = "Parallels",
        ["ACRNACRNACRN"] = "ACRN",
        ["Jailhouse"] = "Jailhouse",
    };

    /// <summary>"KVM (\"KVMKVMKVM\")", or the signature alone where its product is not known; null for none.</summary>
    internal static string? NameHypervisor(string? signature) =>
        signature is null ? null
        : s_hypervisors.TryGetValue(signature, out string? product) ? $"{product} (\"{signature}\")"
        : $"\"{signature}\"";

    private static MachineInfo Create(string path, BlockDevice device) => new(
        Cpu: FirstValue("/proc/cpuinfo", "model name") ?? RuntimeInformation.ProcessArchitecture.ToString(),
        Cores: Environment.ProcessorCount,
        MemoryBytes: MemTotal(),
        Kernel: BlockDevice.TryRead("/proc/sys/kernel/osrelease") ?? Environment.OSVersion.VersionString,
        Os: RuntimeInformation.OSDescription,
        Runtime: RuntimeInformation.FrameworkDescription,
        FileSystem: $"{device.FileSystem} on {device.Source}",
        TransparentHugePages: BlockDevice.TryRead("/sys/kernel/mm/transparent_hugepage/enabled") ?? "n/a",
        PageSize: Environment.SystemPageSize);

    /// <summary>One line for a report: cores, RAM, kernel, filesystem.</summary>
    internal string Describe() => string.Create(CultureInfo.InvariantCulture,
        $"{Cpu}, {Cores} cores, {Sizes.Format(MemoryBytes)} RAM, Linux {Kernel}, {FileSystem}, THP {TransparentHugePages}, {Runtime}");

    /// <summary>One line on what decides the read rates: the disk, its read-ahead and request size, THP, the filesystem.</summary>
    internal string DescribeStorage() => string.Create(CultureInfo.InvariantCulture,
        $"device {Device ?? "none (no block device)"}, read_ahead_kb {Known(ReadAheadKb)}, max_sectors_kb {Known(MaxSectorsKb)}, " +
        $"THP {SelectedMode(TransparentHugePages)}, filesystem {FileSystem}");

    /// <summary>
    /// One line on what the host takes back behind the engine: the hypervisor (CPUID 0x40000000), free page reporting,
    /// DAMON's schemes.
    /// </summary>
    internal string DescribeHost() =>
        $"hypervisor {Hypervisor ?? "none"} by CPUID 0x40000000, free page reporting {FreePageReporting ?? "n/a"}, " +
        $"DAMON {Damon ?? "not in this kernel"}";

    private static string Known(int? value) => value?.ToString(CultureInfo.InvariantCulture) ?? "n/a";

    /// <summary>"always [madvise] never" -> "madvise".</summary>
    private static string SelectedMode(string modes)
    {
        int open = modes.IndexOf('[', StringComparison.Ordinal);
        int close = modes.IndexOf(']', StringComparison.Ordinal);
        return open >= 0 && close > open ? modes[(open + 1)..close] : modes;
    }

    private static string? FirstValue(string path, string key)
    {
        string? text = BlockDevice.TryRead(path);
        if (text is null)
        {
            return null;
        }

        foreach (string line in text.Split('\n'))
        {
            int colon = line.IndexOf(':', StringComparison.Ordinal);
            if (colon > 0 && line[..colon].Trim() == key)
            {
                return line[(colon + 1)..].Trim();
            }
        }

        return null;
    }

    private static long MemTotal()
    {
        string? value = FirstValue("/proc/meminfo", "MemTotal");
        return value is not null && long.TryParse(value.Split(' ')[0], NumberStyles.Integer, CultureInfo.InvariantCulture, out long kib)
            ? kib * 1024
            : GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
    }
}
