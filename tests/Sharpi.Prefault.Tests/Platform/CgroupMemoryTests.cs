namespace Sharpi.Prefault.Tests.Platform;

/// <summary>The cgroup that limits this process most, from a real group's files and from crafted ones.</summary>
public sealed class CgroupMemoryTests
{
    private const long MiB = 1L << 20;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.MemoryCgroup))]
    public void Read_InARealGroup_CountsWhatTheGroupCannotReclaim()
    {
        using MemoryCgroup group = MemoryCgroup.Create(512 * MiB);
        group.HoldUnreclaimable(380 * MiB);

        CgroupMemory? figures = CgroupMemory.Read(group.ProcSelfCgroupText, KernelFile.TryReadText);

        Assert.NotNull(figures);
        Assert.Equal(512 * MiB, figures.Value.LimitBytes);
        Assert.InRange(figures.Value.UsedBytes, 370 * MiB, 430 * MiB);
    }

    [Fact]
    public void Read_V2_TakesTheSmallestLimitFromTheGroupUpToTheRoot()
    {
        var files = new Dictionary<string, string>
        {
            ["/sys/fs/cgroup/system.slice/engine.service/memory.max"] = "max\n",
            ["/sys/fs/cgroup/system.slice/memory.max"] = "8589934592\n",
            ["/sys/fs/cgroup/memory.max"] = "max",
        };

        CgroupMemory? group = CgroupMemory.Read("0::/system.slice/engine.service\n", p => files.GetValueOrDefault(p));

        Assert.Equal(new CgroupMemory(8L << 30, 0), group);
    }

    [Fact]
    public void Read_V2_WithMaxEverywhere_HasNoLimit()
    {
        Assert.Null(CgroupMemory.Read("0::/\n", p => p == "/sys/fs/cgroup/memory.max" ? "max\n" : null));
    }

    [Fact]
    public void Read_V1_ReadsTheMemoryControllersLimit_AndTreatsHugeValuesAsNone()
    {
        const string cgroup = "12:cpu,cpuacct:/docker/abc\n11:memory:/docker/abc\n";
        var limited = new Dictionary<string, string> { ["/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes"] = "2147483648\n" };
        var unlimited = new Dictionary<string, string> { ["/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes"] = "9223372036854771712\n" };

        Assert.Equal(2L << 30, CgroupMemory.Read(cgroup, p => limited.GetValueOrDefault(p))?.LimitBytes);
        Assert.Null(CgroupMemory.Read(cgroup, p => unlimited.GetValueOrDefault(p)));
    }

    [Fact]
    public void Read_TakesTheGroupWithTheLeastRoom_AndCountsItsFileCacheAsRoom()
    {
        var files = new Dictionary<string, string>
        {
            ["/sys/fs/cgroup/a/memory.max"] = "1073741824\n",
            ["/sys/fs/cgroup/a/memory.current"] = "943718400\n", // 900 MiB, of which 600 MiB page cache
            ["/sys/fs/cgroup/a/memory.stat"] = "anon 314572800\nactive_file 419430400\ninactive_file 209715200\n",
            ["/sys/fs/cgroup/a/b/memory.max"] = "2147483648\n",
            ["/sys/fs/cgroup/a/b/memory.current"] = "104857600\n",
        };

        CgroupMemory? group = CgroupMemory.Read("0::/a/b\n", p => files.GetValueOrDefault(p));

        Assert.Equal(new CgroupMemory(1L << 30, 300 * MiB), group);
    }

    [Fact]
    public void Read_WithoutProcSelfCgroup_OrWithLinesItCannotUse_HasNoLimit()
    {
        var files = new Dictionary<string, string> { ["/sys/fs/cgroup/memory.max"] = "1048576\n" };

        Assert.Null(CgroupMemory.Read(null, p => files.GetValueOrDefault(p)));
        Assert.Null(CgroupMemory.Read("garbage\n\n4:cpu:/\n", p => files.GetValueOrDefault(p)));
        Assert.Null(CgroupMemory.Read("0::/\n", p => p.EndsWith("memory.max", StringComparison.Ordinal) ? "-5\n" : null));
    }

    [Fact]
    public void ReclaimableFileBytes_PrefersV1HierarchicalTotals()
    {
        const string V1 = "cache 10\nactive_file 1\ninactive_file 2\ntotal_active_file 100\ntotal_inactive_file 200\n";

        Assert.Equal(300, CgroupMemory.ReclaimableFileBytes(V1));
        Assert.Equal(3, CgroupMemory.ReclaimableFileBytes("active_file 1\ninactive_file 2\n"));
        Assert.Equal(0, CgroupMemory.ReclaimableFileBytes(null));
    }
}
