namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>The static order the signals give the trial (<see cref="MechanismChoice.Order"/>), and the reused choices.</summary>
public sealed class MechanismChoiceTests
{
    [Fact]
    public void Order_PutsHugePagesFirst_ExceptOnAKvmHostThatReportsFreePages()
    {
        Assert.Equal([FolioPolicy.HugePages, FolioPolicy.Windows, FolioPolicy.ReadAhead], Order(reporting: true, hypervisor: "bhyve bhyve "));
        Assert.Equal([FolioPolicy.HugePages, FolioPolicy.Windows, FolioPolicy.ReadAhead], Order(reporting: false, hypervisor: "KVMKVMKVM"));
        Assert.Equal([FolioPolicy.Windows, FolioPolicy.ReadAhead, FolioPolicy.HugePages], Order(reporting: true, hypervisor: "KVMKVMKVM"));
        Assert.Equal([FolioPolicy.HugePages, FolioPolicy.ReadAhead, FolioPolicy.Windows], Order(windowsReadMore: false));
    }

    [Fact]
    public void Order_WithoutHugePages_TriesTheSmallFolioPaths_AndWithThpOff_OnlyWindows()
    {
        Assert.Equal([FolioPolicy.ReadAhead, FolioPolicy.Windows], Order(hugePages: false, windowsReadMore: false));
        Assert.Equal([FolioPolicy.Windows], Order(hugePages: false, thpEnabled: false));
    }

    [Fact]
    public void Order_BesideAnInit_KeepsToHugePagesAndWindows()
    {
        Assert.Equal([FolioPolicy.HugePages, FolioPolicy.Windows], Order(besideInit: true, reporting: true, hypervisor: "KVMKVMKVM"));
        Assert.Equal([FolioPolicy.Windows], Order(besideInit: true, hugePages: false));
    }

    [Fact]
    public void Reused_GivesBackWhatWasRemembered_OnlyForTheSameSettings()
    {
        var key = new MechanismChoice.ChoiceKey(0xFEED_0000_0001, 8 << 20, "9", "always [madvise] never", BesideInit: false, HugePages: true);
        MechanismChoice.Remember(key, new MechanismChoice.Choice(FolioPolicy.ReadAhead, TouchesAll: true));

        Assert.Equal(new MechanismChoice.Choice(FolioPolicy.ReadAhead, true), MechanismChoice.Reused(key));
        Assert.Null(MechanismChoice.Reused(key with { ReadAheadBytes = 128 << 10 }));
        Assert.Null(MechanismChoice.Reused(key with { ReportingOrder = "11" }));
        Assert.Null(MechanismChoice.Reused(key with { BesideInit = true }));
    }

    private static FolioPolicy[] Order(bool hugePages = true, bool thpEnabled = true, bool besideInit = false, bool windowsReadMore = true,
        bool reporting = false, string? hypervisor = null) =>
        MechanismChoice.Order(hugePages, thpEnabled, besideInit, windowsReadMore, reporting, hypervisor);
}
