using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// Each failure of a run carries the call that failed, and the log names that call: the method of the run (populate)
/// says nothing about which call refused a region.
/// </summary>
public sealed class MmapPrefaultFailureTests
{
    private const long MiB = TestFile.MiB;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithPopulate_OverAnUnmappedRange_CarriesAndLogsMincore_NotThePopulate()
    {
        using TestFile live = TestFile.Create(4 * MiB);
        using MappedFile liveMap = live.Map();
        var log = new ListLogger();

        PrefaultResult result = MmapPrefault.Run([new PrefaultRegion(Unmapped.Address(MiB), MiB, "unmapped"), liveMap.Region("live")],
            new PrefaultOptions { Logger = log, Label = "engine", RamGate = RamGate.Always });

        Assert.Equal(PrefaultMethod.Populate, result.Method);
        RegionFailure failure = Assert.Single(result.Failures);
        Assert.Equal(PlatformError.FromErrno("mincore", global::Interop.LinuxConstants.ENOMEM), failure.Error);
        IReadOnlyDictionary<string, object?> fields = Assert.Single(log.Fields, f => f.ContainsKey("ErrorCode"));
        Assert.Equal("mincore", fields["Call"]);
        Assert.Equal(PlatformErrorKind.Errno, fields["ErrorKind"]);
        Assert.Equal(global::Interop.LinuxConstants.ENOMEM, fields["ErrorCode"]);
        Assert.Contains(log.At(LogLevel.Debug), line => line.StartsWith("[engine] mincore at 0x900000000000 length 1048576 failed (Errno 12): ", StringComparison.Ordinal));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void Run_WithPopulate_PastTheEndOfTheMappedFile_CarriesAndLogsThePopulatesEfault()
    {
        // 4 MiB mapped over a file of 1 MiB: the populate stops at the file's end with EFAULT, instead of a SIGBUS.
        var log = new ListLogger();

        PrefaultResult result = RunPastTheEndOfTheFile(PrefaultStrategy.Auto, log);

        Assert.Equal(PrefaultMethod.Populate, result.Method);
        RegionFailure failure = Assert.Single(result.Failures);
        Assert.Equal(PlatformErrorKind.Errno, failure.Error.Kind);
        Assert.Equal("madvise(MADV_POPULATE_READ)", failure.Error.Call);
        Assert.Equal(global::Interop.LinuxConstants.EFAULT, failure.Error.Code);
        Assert.Contains("(madvise(MADV_POPULATE_READ): errno 14 (Bad address))", failure.Message, StringComparison.Ordinal);
        IReadOnlyDictionary<string, object?> fields = Assert.Single(log.Fields, f => f.ContainsKey("ErrorCode"));
        Assert.Equal("madvise(MADV_POPULATE_READ)", fields["Call"]);
        Assert.Equal(global::Interop.LinuxConstants.EFAULT, fields["ErrorCode"]);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void Run_WithTouch_PastTheEndOfTheMappedFile_FailsWithoutACall_ForTheMapsCheckFoundIt()
    {
        // The touch sweep checks /proc/self/maps and the file's length first: no call failed, so none is named or logged.
        var log = new ListLogger();

        PrefaultResult result = RunPastTheEndOfTheFile(PrefaultStrategy.Touch, log);

        RegionFailure failure = Assert.Single(result.Failures);
        Assert.Equal(PlatformError.None, failure.Error);
        Assert.DoesNotContain(log.Fields, f => f.ContainsKey("ErrorCode"));
    }

    /// <summary>A run over 4 MiB mapped over a file of 1 MiB: the last 3 MiB of the mapping have no file under them.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static PrefaultResult RunPastTheEndOfTheFile(PrefaultStrategy strategy, ListLogger log)
    {
        using TestFile file = TestFile.Create(MiB);
        using var view = Mappings.NativeMmap.Map(file.Path, 0, 4 * MiB);
        return MmapPrefault.Run([new PrefaultRegion(view.Address, 4 * MiB, "longer")],
            new PrefaultOptions { Logger = log, RamGate = RamGate.Always, Strategy = strategy });
    }
}
