using System.Globalization;
using System.Text.RegularExpressions;

namespace Sharpi.Prefault.Tests.Platform;

/// <summary>/proc/meminfo's MemAvailable, from the real file and from crafted text.</summary>
public sealed class ProcMemInfoTests
{
    private const string MemInfo = "MemTotal:       24576000 kB\nMemFree:        1000 kB\nMemAvailable:   20000000 kB\nBuffers:   0 kB\n";

    [Fact]
    public void ParseAvailable_ReadsKilobytesAsBytes()
    {
        Assert.Equal(20000000L * 1024, ProcMemInfo.ParseAvailable(MemInfo));
    }

    [Fact]
    public void ParseAvailable_WithoutTheLine_OrWithoutANumber_IsUnknown()
    {
        Assert.Null(ProcMemInfo.ParseAvailable("MemTotal: 1 kB\n"));
        Assert.Null(ProcMemInfo.ParseAvailable("MemAvailable:   lots kB\n"));
        Assert.Null(ProcMemInfo.ParseAvailable("MemAvailable:\n"));
        Assert.Null(ProcMemInfo.ParseAvailable(string.Empty));
        Assert.Null(ProcMemInfo.ParseAvailable(null));
    }

    [Fact]
    public void ParseAvailable_TakesOnlyTheLineThatStartsWithTheKey()
    {
        Assert.Equal(7L * 1024, ProcMemInfo.ParseAvailable("NotMemAvailable: 99 kB\nMemAvailable: 7 kB\n"));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void ParseAvailable_OfTheRealFile_IsItsMemAvailableLine_AtMostMemTotal()
    {
        string meminfo = File.ReadAllText(ProcMemInfo.Path);

        long? available = ProcMemInfo.ParseAvailable(meminfo);

        Assert.Equal(Kilobytes(meminfo, "MemAvailable") * 1024, available);
        Assert.InRange(available!.Value, 1, Kilobytes(meminfo, "MemTotal") * 1024);
        Assert.NotNull(ProcMemInfo.ReadAvailable());
    }

    private static long Kilobytes(string meminfo, string key) =>
        long.Parse(Regex.Match(meminfo, $@"^{key}:\s+(\d+) kB$", RegexOptions.Multiline).Groups[1].Value, CultureInfo.InvariantCulture);
}
