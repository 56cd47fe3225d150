using System.CommandLine;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// One entry of <c>--device</c>: <c>main</c> (the file where it is), <c>ram-FS</c> (a loop device over a file on a
/// tmpfs the bench mounts: storage faster than one core can fault) or <c>disk-FS</c> (a loop device, with direct I/O,
/// over a file on the disk of <c>--dir</c>: the same disk as main, through another filesystem), FS one of ext4, xfs,
/// btrfs.
/// </summary>
internal sealed record DeviceSpec(string Name, bool InRam, string FileSystem)
{
    internal const string MainName = "main";

    internal static readonly string[] FileSystems = ["ext4", "xfs", "btrfs"];

    internal bool IsMain => Name == MainName;

    /// <summary>The package that brings the filesystem's mkfs on Debian and Ubuntu.</summary>
    internal string Package => FileSystem switch
    {
        "xfs" => "xfsprogs",
        "btrfs" => "btrfs-progs",
        _ => "e2fsprogs",
    };

    internal static Option<string> CreateOption() => new("--device")
    {
        Description = "Comma-separated devices to run every pass on: main (default: the file where it is), ram-ext4, ram-xfs, ram-btrfs " +
            "(a loop device over a file on a tmpfs: RAM-fast storage), disk-ext4, disk-xfs, disk-btrfs (a loop device with direct I/O over a " +
            "file in --dir: the main disk through that filesystem). Root; each is said before it is made, gets a copy of the file, and is " +
            "removed after its passes, on errors and on Ctrl+C/SIGTERM. A missing mkfs skips its filesystem visibly.",
        DefaultValueFactory = _ => MainName,
    };

    /// <summary>The devices asked for, in order, each once.</summary>
    internal static List<DeviceSpec> Parse(string value)
    {
        List<DeviceSpec> devices = CommaList.Parse(value, static item =>
        {
            if (item == MainName)
            {
                return new DeviceSpec(MainName, InRam: false, FileSystem: string.Empty);
            }

            int dash = item.IndexOf('-', StringComparison.Ordinal);
            string backing = dash > 0 ? item[..dash] : string.Empty;
            string fileSystem = dash > 0 ? item[(dash + 1)..] : string.Empty;
            return backing is "ram" or "disk" && FileSystems.Contains(fileSystem)
                ? new DeviceSpec(item, backing == "ram", fileSystem)
                : throw new BenchException($"--device: unknown device '{item}'; use main, ram-ext4, ram-xfs, ram-btrfs, disk-ext4, disk-xfs or disk-btrfs.");
        }).ToList();
        return devices.Count > 0 ? devices : throw new BenchException("--device: give at least one device, for example main or ram-ext4.");
    }
}
