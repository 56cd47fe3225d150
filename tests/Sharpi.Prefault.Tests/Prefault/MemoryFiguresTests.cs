namespace Sharpi.Prefault.Tests.Prefault;

public sealed class MemoryFiguresTests
{
    private const string MemInfo = "MemTotal:       24576000 kB\nMemFree:        1000 kB\nMemAvailable:   20000000 kB\nBuffers:   0 kB\n";

    [Fact]
    public void ParseMemAvailable_ReadsKilobytesAsBytes()
    {
        Assert.Equal(20000000L * 1024, MemoryFigures.ParseMemAvailable(MemInfo));
    }

    [Fact]
    public void ParseMemAvailable_WithoutTheLine_IsUnknown()
    {
        Assert.Null(MemoryFigures.ParseMemAvailable("MemTotal: 1 kB\n"));
        Assert.Null(MemoryFigures.ParseMemAvailable(null));
    }

    [Fact]
    public void CgroupV2_TakesTheSmallestLimitFromTheGroupUpToTheRoot()
    {
        var files = new Dictionary<string, string>
        {
            ["/sys/fs/cgroup/system.slice/engine.service/memory.max"] = "max\n",
            ["/sys/fs/cgroup/system.slice/memory.max"] = "8589934592\n",
            ["/sys/fs/cgroup/memory.max"] = "max",
        };

        long? limit = MemoryFigures.ReadCgroupLimit("0::/system.slice/engine.service\n", p => files.GetValueOrDefault(p));

        Assert.Equal(8L << 30, limit);
    }

    [Fact]
    public void CgroupV2_WithMaxEverywhere_HasNoLimit()
    {
        long? limit = MemoryFigures.ReadCgroupLimit("0::/\n", p => p == "/sys/fs/cgroup/memory.max" ? "max\n" : null);

        Assert.Null(limit);
    }

    [Fact]
    public void CgroupV1_ReadsTheMemoryControllersLimit_AndTreatsHugeValuesAsNone()
    {
        const string cgroup = "12:cpu,cpuacct:/docker/abc\n11:memory:/docker/abc\n";
        var limited = new Dictionary<string, string> { ["/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes"] = "2147483648\n" };
        var unlimited = new Dictionary<string, string> { ["/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes"] = "9223372036854771712\n" };

        Assert.Equal(2L << 30, MemoryFigures.ReadCgroupLimit(cgroup, p => limited.GetValueOrDefault(p)));
        Assert.Null(MemoryFigures.ReadCgroupLimit(cgroup, p => unlimited.GetValueOrDefault(p)));
    }

    [Fact]
    public void Current_OnLinux_KnowsMemAvailable()
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Null(MemoryFigures.Current().AvailableBytes);
            return;
        }

        // /proc/meminfo's MemAvailable, read here around the call: it moves while the machine works, so within 64 MiB.
        long before = MemAvailableFromProc();
        long? available = MemoryFigures.Current().AvailableBytes;
        long after = MemAvailableFromProc();
        const long Slack = 64L << 20;
        Assert.InRange(available ?? -1, Math.Min(before, after) - Slack, Math.Max(before, after) + Slack);
    }

    private static long MemAvailableFromProc()
    {
        string line = File.ReadLines("/proc/meminfo").Single(l => l.StartsWith("MemAvailable:", StringComparison.Ordinal));
        string[] parts = line.Split(' ', StringSplitOptions.RemoveEmptyEntries); // "MemAvailable:", "<n>", "kB"
        Assert.Equal("kB", parts[2]);
        return long.Parse(parts[1], System.Globalization.CultureInfo.InvariantCulture) * 1024;
    }
}
