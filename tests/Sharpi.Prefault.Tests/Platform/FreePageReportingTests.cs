namespace Sharpi.Prefault.Tests.Platform;

/// <summary>A virtio balloon that negotiated VIRTIO_BALLOON_F_REPORTING, with an order a free block can reach, reports free pages.</summary>
public sealed class FreePageReportingTests
{
    private const string Reporting = "0110010000000000000000000000000010000000"; // bits 1, 2 and 5: stats, deflate on OOM, reporting
    private const string NotReporting = "0110000000000000000000000000000010000000";

    [Theory]
    [InlineData("0x0005", Reporting, "9", true)]
    [InlineData("0x0005", Reporting, null, true)]      // no module parameter: the kernel's default order
    [InlineData("0x0005", Reporting, "10", true)]
    [InlineData("0x0005", Reporting, "11", false)]     // above the largest order: nothing is ever reported (how the bench suspends it)
    [InlineData("0x0005", NotReporting, "9", false)]
    [InlineData("0x0002", Reporting, "9", false)]      // a block device with bit 5 set means something else
    [InlineData("0x0005", "01100", "9", false)]        // too few bits
    [InlineData(null, Reporting, "9", false)]
    public void IsReporting_ReadsTheBalloonsFeatureBitAndTheOrder(string? device, string features, string? order, bool expected) =>
        Assert.Equal(expected, FreePageReporting.IsReporting(device, features, order));

    [Fact]
    public void IsActive_IsWhatThisMachinesSysfsSays()
    {
        bool expected = false;
        if (OperatingSystem.IsLinux() && Directory.Exists("/sys/bus/virtio/devices"))
        {
            string? order = File.Exists("/sys/module/page_reporting/parameters/page_reporting_order")
                ? File.ReadAllText("/sys/module/page_reporting/parameters/page_reporting_order")
                : null;
            foreach (string dir in Directory.GetDirectories("/sys/bus/virtio/devices"))
            {
                expected |= File.ReadAllText(Path.Combine(dir, "device")).Trim() == "0x0005"
                    && File.ReadAllText(Path.Combine(dir, "features")).Trim() is { Length: > 5 } bits && bits[5] == '1'
                    && (order is null || int.Parse(order.Trim(), System.Globalization.CultureInfo.InvariantCulture) <= 10);
            }
        }

        Assert.Equal(expected, FreePageReporting.IsActive);
    }
}

/// <summary>An operator (or the bench's --free-page-reporting suspend) may change the order while the process runs.</summary>
[Collection(SerializedEnvironment.Name)]
public sealed class FreePageReportingOrderTests
{
    private const string OrderPath = "/sys/module/page_reporting/parameters/page_reporting_order";

    [ConditionalFact(typeof(Requirements), nameof(Requirements.FreePageReportingHost), nameof(Requirements.Root))]
    public void IsActive_ReadsTheOrderAtEachLook_SoASuspensionWhileTheProcessRunsCounts()
    {
        // Read once per process, a look before the bench suspended reporting decided every run after it: the engine
        // bench's prefault-before-create read 4 KiB folios with reporting suspended, and ONNX Runtime's first inference
        // then took 31,000 minor faults (2.2x its second) where it took 836 before.
        Assert.True(FreePageReporting.IsActive);
        string was = File.ReadAllText(OrderPath).Trim();
        try
        {
            File.WriteAllText(OrderPath, "11");
            Assert.False(FreePageReporting.IsActive);
        }
        finally
        {
            File.WriteAllText(OrderPath, was);
        }

        Assert.True(FreePageReporting.IsActive);
    }
}
