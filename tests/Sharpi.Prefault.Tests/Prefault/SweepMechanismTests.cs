using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>The mechanism of a run, decided in one step from the strategy, the plan and the platform.</summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class SweepMechanismTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Choose_Auto_OverAColdFile_PopulatesAndTouchesAfterUnderAHypervisor_WithoutAHintFirst()
    {
        FirstAccessProbe.Override.Value = KernelTouchPays; // the static rule, whatever an earlier trial measured on this machine
        using SweepMechanism mechanism = ChooseOverAFile(PrefaultStrategy.Auto);

        Assert.Equal(PrefaultMethod.Populate, mechanism.Method);
        Assert.True(mechanism.Populates);
        Assert.Equal(Hypervisor.IsPresent || FreePageReporting.IsActive, mechanism.TouchesAfterPopulate);
        Assert.True(mechanism.SweepsChunks);
        Assert.False(mechanism.HintsFirst);
        Assert.False(mechanism.ChecksBeforeTouch);
        // The staging brings the file's bytes in before the populate, one way or another (huge-page advice where THP
        // is on and no free page is reported to a host; views, read-ahead windows or the device's own read-ahead
        // otherwise): all of the 4 MiB.
        FileStaging staging = Assert.IsType<FileStaging>(mechanism.Staging);
        Assert.True(staging.HugePageAdvisedBytes + staging.ViewBytes + staging.WindowedBytes + staging.KernelReadAheadBytes >= 4 * TestFile.MiB, staging.Describe());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Choose_WhereTheTouchFollowsThePopulate_TouchesThroughTheEnginesMapping_AndSaysSo()
    {
        FirstAccessProbe.Override.Value = KernelTouchPays; // the static rule, whatever an earlier trial measured on this machine
        using SweepMechanism mechanism = ChooseOverAFile(PrefaultStrategy.Auto, reporting: true, cpuSaysHypervisor: true);

        Assert.True(mechanism.TouchesAfterPopulate);
        Assert.NotNull(mechanism.ThroughMapping);
        Assert.Contains("through the engine's mapping (pwritev into a memfd)", mechanism.Describe(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(PrefaultMethod.Populate, true, true, true, false, true, true)]
    [InlineData(PrefaultMethod.Populate, true, true, true, false, false, false)]   // bare metal: no host can fault the memory in
    [InlineData(PrefaultMethod.Populate, true, true, true, true, false, true)]     // a balloon reports free pages: a host, whatever the CPU says
    [InlineData(PrefaultMethod.Populate, false, true, true, true, true, false)]    // nothing was read: no first access to pay for
    [InlineData(PrefaultMethod.Populate, true, false, true, true, true, false)]      // beside the init: CPU the init would lose
    [InlineData(PrefaultMethod.Populate, true, true, false, true, true, false)]    // the touch would be a plain load (SIGBUS on truncation)
    [InlineData(PrefaultMethod.Touch, true, true, true, true, true, false)]
    [InlineData(PrefaultMethod.Hint, true, true, true, true, true, false)]
    public void SamplesAfterPopulate_OnlyAPopulateThatReadSomething_OffTheInit_ThroughTheKernel_WhereAHostMayFault(
        PrefaultMethod method, bool somethingToRead, bool touchAllowed, bool kernelChecked, bool reporting, bool cpuSaysHypervisor, bool expected) =>
        Assert.Equal(expected, SweepMechanism.SamplesAfterPopulate(method, somethingToRead, touchAllowed, reporting, cpuSaysHypervisor, kernelChecked));

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Choose_Auto_OverAColdFile_OnBareMetal_DoesNotSample_AndSaysWhy()
    {
        var log = new ListLogger();
        using SweepMechanism mechanism = ChooseOverAFile(PrefaultStrategy.Auto, log: log, reporting: false, cpuSaysHypervisor: false);

        Assert.Equal(PrefaultMethod.Populate, mechanism.Method);
        Assert.False(mechanism.TouchesAfterPopulate);
        Assert.Equal(15, Assert.Single(log.EventIds, static id => id == 15));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Choose_Auto_OverAColdFile_UnderAHypervisor_Samples_AndSaysNothingOfIt()
    {
        FirstAccessProbe.Override.Value = KernelTouchPays; // the static rule, whatever an earlier trial measured on this machine
        var log = new ListLogger();
        using SweepMechanism mechanism = ChooseOverAFile(PrefaultStrategy.Auto, log: log, reporting: false, cpuSaysHypervisor: true);

        Assert.True(mechanism.TouchesAfterPopulate);
        Assert.DoesNotContain(15, log.EventIds);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Choose_Auto_OverAResidentFile_DoesNotTouchAfterPopulate()
    {
        // Nothing is read when everything is resident already, so there is no first access to pay for.
        using SweepMechanism mechanism = ChooseOverAFile(PrefaultStrategy.Auto, evict: false);

        Assert.Equal(PrefaultMethod.Populate, mechanism.Method);
        Assert.False(mechanism.TouchesAfterPopulate);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Choose_BesideTheInit_OverAColdFile_PopulatesWithoutTheTouchAfter()
    {
        // Start's sweep runs beside the engine's init: the touch's reads, and a host's faults under them, would be CPU
        // the init loses (1.23-1.34x its time with a region per layer on a VM that reports free pages, 1.03x without).
        using SweepMechanism mechanism = ChooseOverAFile(PrefaultStrategy.Auto, besideInit: true);

        Assert.Equal(PrefaultMethod.Populate, mechanism.Method);
        Assert.False(mechanism.TouchesAfterPopulate);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Choose_Touch_OnLinux_ChecksBeforeTouching_AndDoesNotHintFirst()
    {
        // Linux caps the hint at the read-ahead window: the touch goes straight to the sweep.
        using SweepMechanism mechanism = ChooseOverAFile(PrefaultStrategy.Touch);

        Assert.Equal(PrefaultMethod.Touch, mechanism.Method);
        Assert.True(mechanism.ChecksBeforeTouch);
        Assert.False(mechanism.HintsFirst);
        Assert.False(mechanism.Populates);
        Assert.False(mechanism.TouchesAfterPopulate);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Choose_HintOnly_HintsAndSweepsNoChunk()
    {
        using SweepMechanism mechanism = ChooseOverAFile(PrefaultStrategy.HintOnly);

        Assert.Equal(PrefaultMethod.Hint, mechanism.Method);
        Assert.True(mechanism.HintsFirst);
        Assert.False(mechanism.SweepsChunks);
    }

    /// <summary>The mechanism chosen for a run with <paramref name="strategy"/> over a mapped 4 MiB file, cold unless <paramref name="evict"/> is false.</summary>
    private static SweepMechanism ChooseOverAFile(PrefaultStrategy strategy, bool evict = true, bool besideInit = false, ListLogger? log = null,
        bool? reporting = null, bool? cpuSaysHypervisor = null)
    {
        using TestFile file = TestFile.Create(4 * TestFile.MiB, evict: evict);
        using MappedFile map = file.Map();
        PrefaultPlan plan = PrefaultPlan.Measure(RegionSet.Merge([map.Region()]), []);
        PrefaultOptions options = new PrefaultOptions { Strategy = strategy };
        return SweepMechanism.Choose(plan, options, (ILogger?)log ?? NullLogger.Instance, besideInit ? SweepThreads.ForStart(options) : SweepThreads.ForRun(options), reporting,
            cpuSaysHypervisor);
    }

    /// <summary>Figures of a machine where a touch through the kernel pays the engine's first access (nothing to pay at all).</summary>
    private static readonly FirstAccessProbe.Costs KernelTouchPays = new(0, 0, 0);
}
