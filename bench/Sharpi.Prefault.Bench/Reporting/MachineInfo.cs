using System.Globalization;
using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Bench;

/// <summary>Where a result came from: the figures a reader needs to compare it with their own machine.</summary>
internal sealed record MachineInfo(string Cpu, int Cores, long MemoryBytes, string Kernel, string Os, string Runtime, string FileSystem,
    string TransparentHugePages, int PageSize)
{
    internal static MachineInfo Current(string path) => new(
        Cpu: FirstValue("/proc/cpuinfo", "model name") ?? RuntimeInformation.ProcessArchitecture.ToString(),
        Cores: Environment.ProcessorCount,
        MemoryBytes: MemTotal(),
        Kernel: ReadTrimmed("/proc/sys/kernel/osrelease") ?? Environment.OSVersion.VersionString,
        Os: RuntimeInformation.OSDescription,
        Runtime: RuntimeInformation.FrameworkDescription,
        FileSystem: FileSystemOf(path),
        TransparentHugePages: ReadTrimmed("/sys/kernel/mm/transparent_hugepage/enabled") ?? "n/a",
        PageSize: Environment.SystemPageSize);

    /// <summary>One line for a report: cores, RAM, kernel, filesystem.</summary>
    internal string Describe() => string.Create(CultureInfo.InvariantCulture,
        $"{Cpu}, {Cores} cores, {ByteSize.Format(MemoryBytes)} RAM, Linux {Kernel}, {FileSystem}, THP {TransparentHugePages}, {Runtime}");

    private static string? ReadTrimmed(string path)
    {
        try
        {
            return File.Exists(path) ? File.ReadAllText(path).Trim() : null;
        }
        catch (IOException)
        {
            return null;
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }

    private static string? FirstValue(string path, string key)
    {
        string? text = ReadTrimmed(path);
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

    /// <summary>The filesystem type and device of the mount that holds <paramref name="path"/> (longest matching mount point).</summary>
    private static string FileSystemOf(string path)
    {
        string? mounts = ReadTrimmed("/proc/self/mounts");
        if (mounts is null)
        {
            return "unknown filesystem";
        }

        string full = Path.GetFullPath(path);
        string best = "unknown filesystem";
        int bestLength = -1;
        foreach (string line in mounts.Split('\n'))
        {
            string[] fields = line.Split(' ');
            if (fields.Length < 3)
            {
                continue;
            }

            string mountPoint = fields[1].Replace("\\040", " ", StringComparison.Ordinal);
            bool contains = mountPoint == "/" || full == mountPoint || full.StartsWith(mountPoint + "/", StringComparison.Ordinal);
            if (contains && mountPoint.Length >= bestLength)
            {
                bestLength = mountPoint.Length;
                best = $"{fields[2]} on {fields[0]}";
            }
        }

        return best;
    }
}
