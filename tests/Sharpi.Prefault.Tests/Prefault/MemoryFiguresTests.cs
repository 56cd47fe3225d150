namespace Sharpi.Prefault.Tests.Prefault;

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

        Assert.InRange(MemoryFigures.Current().AvailableBytes ?? 0, 1, long.MaxValue);
    }
}
