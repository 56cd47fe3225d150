namespace Sharpi.Prefault.Tests.Platform;

public sealed class MemoryFiguresTests
{
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
