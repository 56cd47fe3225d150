using Microsoft.Extensions.Logging;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// The touch after a populate runs only where free page reporting makes it pay. The parsers are checked on the texts
/// the kernel writes; the decision itself on this machine's real balloon, by suspending reporting the way the bench
/// does (page_reporting_order above the buddy allocator's orders) and restoring it.
/// </summary>
[Collection(SerializedEnvironment.Name)]
public sealed class TouchAfterPopulateTests
{
    private const string TouchLine = "Reading every page once more after populating it";

    [Theory]
    [InlineData("9\n", 11, true)]
    [InlineData("10", 11, true)]
    [InlineData("11\n", 11, false)]
    [InlineData("0", 11, true)]
    [InlineData("-1", 11, false)]
    [InlineData("", 11, false)]
    [InlineData(null, 11, false)]
    [InlineData("nine", 11, false)]
    public void IsReportingOrderActive_ReportsOnlyAnOrderTheAllocatorHas(string? order, int pageOrders, bool active) =>
        Assert.Equal(active, TouchAfterPopulate.IsReportingOrderActive(order, pageOrders));

    [Theory]
    [InlineData("01100101000000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\n", true)]
    [InlineData("01100001000000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\n", false)]
    [InlineData("01100", false)]
    [InlineData("", false)]
    [InlineData(null, false)]
    public void HasReportingFeature_ReadsBitFiveOfTheFeatureString(string? features, bool reports) =>
        Assert.Equal(reports, TouchAfterPopulate.HasReportingFeature(features));

    [Theory]
    [InlineData("Node 0, zone      DMA      0      0      0      0      0      0      0      1      1      1      3 \nNode 0, zone    DMA32 1 2\n", 11)]
    [InlineData("Node 0, zone   Normal   5   4   3   2   1\n", 5)]
    [InlineData("Node 0, zone   Normal\n", null)]
    [InlineData("", null)]
    [InlineData(null, null)]
    public void CountPageOrders_CountsTheFirstZonesColumns(string? buddyInfo, int? orders) =>
        Assert.Equal(orders, TouchAfterPopulate.CountPageOrders(buddyInfo));

    [FreePageReportingFact]
    public void Run_TouchesAfterPopulate_OnlyWhileTheBalloonReportsFreePages()
    {
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        string original = File.ReadAllText(TouchAfterPopulate.ReportingOrderPath).Trim();
        Assert.True(TouchAfterPopulate.IsFreePageReportingActive(out string? why));
        Assert.Contains("reports free pages", why, StringComparison.Ordinal);

        ListLogger reporting = RunCold(file);
        Assert.Contains(reporting.At(LogLevel.Debug), m => m.Contains(TouchLine, StringComparison.Ordinal));

        try
        {
            File.WriteAllText(TouchAfterPopulate.ReportingOrderPath, "11");
            Assert.False(TouchAfterPopulate.IsFreePageReportingActive(out _));

            ListLogger suspended = RunCold(file);
            Assert.DoesNotContain(suspended.At(LogLevel.Debug), m => m.Contains(TouchLine, StringComparison.Ordinal));
        }
        finally
        {
            File.WriteAllText(TouchAfterPopulate.ReportingOrderPath, original);
        }

        Assert.True(TouchAfterPopulate.IsFreePageReportingActive(out _));
    }

    [LinuxFact]
    public void Run_OverAWarmFile_NeverTouchesAfterPopulate()
    {
        // Nothing was just read, so there is no host fault to pay for, reporting or not.
        using TestFile file = TestFile.Create(8 * TestFile.MiB, evict: false);
        using MappedFile map = file.Map();
        Assert.True(MmapPrefault.Run([map.Region()], PrefaultOptions.Default with { RamGate = RamGate.Always }).HasRun);
        var log = new ListLogger();

        PrefaultResult result = MmapPrefault.Run([map.Region()], PrefaultOptions.Default with { RamGate = RamGate.Always, Logger = log });

        Assert.True(result.HasRun, result.Reason);
        Assert.Equal(file.Length, result.BytesAlreadyResident);
        Assert.DoesNotContain(log.At(LogLevel.Debug), m => m.Contains(TouchLine, StringComparison.Ordinal));
    }

    private static ListLogger RunCold(TestFile file)
    {
        file.Evict();
        var log = new ListLogger();
        using MappedFile map = file.Map();
        PrefaultResult result = MmapPrefault.Run([map.Region()], PrefaultOptions.Default with { RamGate = RamGate.Always, Logger = log });
        Assert.True(result.HasRun, result.Reason);
        Assert.Equal(PrefaultMethod.Populate, result.Method);
        Assert.Empty(result.Failures);
        Assert.Equal(100.0, map.ResidentPercent());
        return log;
    }
}

/// <summary>A fact that needs this machine's free page reporting on and the right to suspend it; skipped, with the reason, elsewhere.</summary>
public sealed class FreePageReportingFactAttribute : FactAttribute
{
    public FreePageReportingFactAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "Linux only: free page reporting is a Linux guest feature.";
        }
        else if (!TouchAfterPopulate.IsFreePageReportingActive(out _))
        {
            Skip = "no virtio balloon reporting free pages here (bare metal, or reporting off): nothing to suspend.";
        }
        else if (Environment.UserName != "root")
        {
            Skip = $"needs root to write {TouchAfterPopulate.ReportingOrderPath}.";
        }
    }
}
