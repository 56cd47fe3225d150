using Sharpi.Prefault.Bench;

namespace Sharpi.Prefault.Bench.Tests.Device;

/// <summary>The DAMON reader against trees laid out as Linux lays out /sys/kernel/mm/damon/admin, and against the real one.</summary>
public sealed class DamonSchemesTests : IDisposable
{
    private readonly string _root = Directory.CreateTempSubdirectory("sharpi-damon-").FullName;

    public void Dispose() => Directory.Delete(_root, recursive: true);

    private string Kdamonds => Path.Combine(_root, "kdamonds");

    private string ReclaimModule => Path.Combine(_root, "damon_reclaim");

    private void Write(string relative, string content)
    {
        string path = Path.Combine(Kdamonds, relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllText(path, content + "\n");
    }

    /// <summary>The scheme of the development VM (Linux 6.18): pageout of unmapped file pages idle 12 aggregations of 5 s, 128 MiB per second.</summary>
    private void WriteReclaimScheme(string kdamond = "0", string state = "on")
    {
        string context = $"{kdamond}/contexts/0";
        string scheme = $"{context}/schemes/0";
        Write($"{kdamond}/state", state);
        Write($"{context}/operations", "paddr");
        Write($"{context}/monitoring_attrs/intervals/aggr_us", "5000000");
        Write($"{context}/monitoring_attrs/intervals/sample_us", "500000");
        Write($"{scheme}/action", "pageout");
        Write($"{scheme}/access_pattern/age/min", "12");
        Write($"{scheme}/access_pattern/age/max", "4294967295");
        Write($"{scheme}/quotas/bytes", "134217728");
        Write($"{scheme}/quotas/reset_interval_ms", "1000");
        Write($"{scheme}/filters/nr_filters", "0");
        Write($"{scheme}/core_filters/nr_filters", "0");
        Write($"{scheme}/ops_filters/nr_filters", "2");
        Write($"{scheme}/ops_filters/0/type", "anon");
        Write($"{scheme}/ops_filters/0/matching", "Y");
        Write($"{scheme}/ops_filters/0/allow", "N");
        Write($"{scheme}/ops_filters/1/type", "unmapped");
        Write($"{scheme}/ops_filters/1/matching", "Y");
        Write($"{scheme}/ops_filters/1/allow", "Y");
    }

    [Fact]
    public void Read_OfAPageoutScheme_GivesItsActionAgeFiltersAndQuota()
    {
        WriteReclaimScheme();
        DamonSchemes.Scheme scheme = Assert.Single(DamonSchemes.Read(Kdamonds));
        Assert.Equal("on", scheme.State);
        Assert.Equal("paddr", scheme.Operations);
        Assert.Equal("pageout", scheme.Action);
        Assert.Equal(12, scheme.MinAgeIntervals);
        Assert.Equal(60.0, scheme.MinAgeSeconds);
        Assert.Equal(128L << 20, scheme.QuotaBytes);
        Assert.Equal(["anon excluded", "unmapped only"], scheme.Filters);
        Assert.Equal("kdamond 0 on: pageout (paddr) of memory idle >= 60 s (12 x 5 s), anon excluded, unmapped only, at most 128.00 MiB per 1 s",
            scheme.Describe());
    }

    [Fact]
    public void Read_OfFiltersBeforeTheAllowFile_CountsThemAsExcluding()
    {
        // Linux 6.3-6.13: filters/ only, no allow file; a filter then kept what it matched out of the action.
        WriteReclaimScheme();
        Directory.Delete(Path.Combine(Kdamonds, "0/contexts/0/schemes/0/ops_filters"), recursive: true);
        Write("0/contexts/0/schemes/0/filters/0/type", "anon");
        Write("0/contexts/0/schemes/0/filters/0/matching", "Y");
        Write("0/contexts/0/schemes/0/filters/1/type", "memcg");
        Write("0/contexts/0/schemes/0/filters/1/matching", "N");
        Assert.Equal(["anon excluded", "not memcg excluded"], Assert.Single(DamonSchemes.Read(Kdamonds)).Filters);
    }

    [Fact]
    public void Read_OfSeveralKdamonds_KeepsTheirNumericOrder()
    {
        WriteReclaimScheme("10", "off");
        WriteReclaimScheme("2");
        Write("nr_kdamonds", "2");
        Assert.Equal(["2", "10"], DamonSchemes.Read(Kdamonds).Select(static s => s.Kdamond));
    }

    [Fact]
    public void Describe_WithoutDamon_IsNull() =>
        Assert.Null(DamonSchemes.Describe(Path.Combine(_root, "absent"), Path.Combine(_root, "absent-module")));

    [Fact]
    public void Describe_OfAKdamondWithoutSchemes_SaysNone()
    {
        Write("0/state", "off");
        Write("0/contexts/nr_contexts", "0");
        Assert.Equal("none", DamonSchemes.Describe(Kdamonds, ReclaimModule));
    }

    [Fact]
    public void Describe_OfTheReclaimModuleEnabled_GivesItsMinimumAge()
    {
        Directory.CreateDirectory(ReclaimModule);
        File.WriteAllText(Path.Combine(ReclaimModule, "enabled"), "Y\n");
        File.WriteAllText(Path.Combine(ReclaimModule, "min_age"), "120000000\n");
        Assert.Equal("damon_reclaim module enabled: pageout of memory idle >= 120 s", DamonSchemes.Describe(Kdamonds, ReclaimModule));
    }

    /// <summary>The real interface (root reads it): every scheme the reader finds has the action its own file holds.</summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.DamonSysfs))]
    public void Read_OfThisMachine_AgreesWithItsFiles()
    {
        List<DamonSchemes.Scheme> schemes = DamonSchemes.Read();
        int count = 0;
        foreach (string kdamond in Directory.EnumerateDirectories(DamonSchemes.Root))
        {
            foreach (string scheme in Directory.EnumerateDirectories(Path.Combine(kdamond, "contexts"), "*", SearchOption.AllDirectories)
                .Where(static d => Path.GetFileName(Path.GetDirectoryName(d)) == "schemes"))
            {
                string action = File.ReadAllText(Path.Combine(scheme, "action")).Trim();
                Assert.Contains(schemes, s => s.Kdamond == Path.GetFileName(kdamond) && s.Action == action);
                count++;
            }
        }

        Assert.Equal(count, schemes.Count);
        Assert.NotNull(DamonSchemes.Describe());
    }
}
