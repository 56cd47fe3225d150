namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>The operators' variables, parsed in one place; the tests that set them for real are serialized.</summary>
[Collection(SerializedEnvironment.Name)]
public sealed class OperatorSettingsTests
{
    [Theory]
    [InlineData(null, PrefaultMode.Auto, true)]
    [InlineData("", PrefaultMode.Auto, true)]
    [InlineData(" auto ", PrefaultMode.Auto, true)]
    [InlineData("0", PrefaultMode.Off, true)]
    [InlineData("Off", PrefaultMode.Off, true)]
    [InlineData("FALSE", PrefaultMode.Off, true)]
    [InlineData("1", PrefaultMode.Force, true)]
    [InlineData(" On", PrefaultMode.Force, true)]
    [InlineData("force ", PrefaultMode.Force, true)]
    [InlineData("yes", PrefaultMode.Auto, false)]
    [InlineData("2", PrefaultMode.Auto, false)]
    [InlineData("o ff", PrefaultMode.Auto, false)]
    public void ParseMode_IsCaseInsensitiveAndTrimmed_AndFlagsUnknownValues(string? value, object expected, bool recognized)
    {
        PrefaultMode mode = OperatorSettings.ParseMode(value, out bool ok);

        Assert.Equal(expected, mode);
        Assert.Equal(recognized, ok);
    }

    [Theory]
    [InlineData(null, null, true)]
    [InlineData(" ", null, true)]
    [InlineData("0.5", 0.5, true)]
    [InlineData(" 1 ", 1.0, true)]
    [InlineData("0", null, false)]
    [InlineData("1.5", null, false)]
    [InlineData("-0.2", null, false)]
    [InlineData("half", null, false)]
    [InlineData("NaN", null, false)]
    public void ParseFraction_AcceptsOnlyNumbersInTheUnitInterval(string? value, double? expected, bool valid)
    {
        double? f = OperatorSettings.ParseFraction(value, out bool ok);

        Assert.Equal(expected, f);
        Assert.Equal(valid, ok);
    }

    [Theory]
    [InlineData(" OFF ", true, "OFF")]
    [InlineData("0", true, "0")]
    [InlineData("force", false, "force")]
    [InlineData(null, false, "")]
    public void IsOff_ReadsTheSwitchNow_AndQuotesItTrimmed(string? value, bool off, string quoted)
    {
        using var env = new EnvironmentVariableScope(OperatorSettings.ModeVariable, value);

        Assert.Equal(off, OperatorSettings.IsOff(out string seen));
        Assert.Equal(quoted, seen);
        Assert.Equal(off, OperatorSettings.IsOffNow);
    }

    [Theory]
    [InlineData(PrefaultMode.Off, false)]
    [InlineData(PrefaultMode.Force, true)]
    public void Decision_OfOffOrForce_IsTheOperators_WhateverTheMemory(object mode, bool runs)
    {
        var settings = new OperatorSettings((PrefaultMode)mode, ramFraction: 0.8);

        RamGateDecision decision = settings.Decide(bytesNeeded: 1L << 40, 0, new MemoryFigures(AvailableBytes: 0, CgroupLimitBytes: 0), RamGate.FitsInRam);

        Assert.Equal(settings.Decision, decision);
        Assert.Equal(runs, decision.ShouldRun);
        Assert.False(settings.WeighsMemory(RamGate.FitsInRam));
    }

    [Fact]
    public void Decision_UnderAuto_IsTheRamFitGates()
    {
        var settings = new OperatorSettings(PrefaultMode.Auto, ramFraction: 0.5);

        RamGateDecision decision = settings.Decide(bytesNeeded: 100, 0, new MemoryFigures(AvailableBytes: 100, CgroupLimitBytes: null), RamGate.FitsInRam);

        Assert.Null(settings.Decision);
        Assert.True(settings.WeighsMemory(RamGate.FitsInRam));
        Assert.False(settings.WeighsMemory(RamGate.Always));
        Assert.Equal(RamGateDecision.Decide(100, 0, new MemoryFigures(100, null), RamGate.FitsInRam, 0.5), decision);
        Assert.Equal(50, decision.BudgetBytes);
    }
}
