namespace Sharpi.Prefault.Tests.Prefault;

public sealed class EnvironmentGateTests
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
    public void ParseMode_IsCaseInsensitiveAndTrimmed_AndFlagsUnknownValues(string? value, PrefaultMode expected, bool recognized)
    {
        PrefaultMode mode = EnvironmentGate.ParseMode(value, out bool ok);

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
        double? f = EnvironmentGate.ParseFraction(value, out bool ok);

        Assert.Equal(expected, f);
        Assert.Equal(valid, ok);
    }
}
