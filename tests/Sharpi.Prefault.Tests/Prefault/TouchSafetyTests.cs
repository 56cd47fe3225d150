namespace Sharpi.Prefault.Tests.Prefault;

public sealed class TouchSafetyTests
{
    private const string Maps = """
        00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/dbus-daemon
        7f0000000000-7f0000100000 r--s 00000000 fd:01 4242        /data/model weights.gguf
        7f0000100000-7f0000101000 ---p 00000000 00:00 0
        7f0000200000-7f0000300000 rw-p 00000000 00:00 0
        7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0           [stack]
        """;

    [Fact]
    public void Parse_ReadsRangesPermissionsOffsetsAndPathsWithSpaces()
    {
        ProcMapEntry[] entries = ProcMaps.Parse(Maps);

        Assert.Equal(5, entries.Length);
        ProcMapEntry model = entries[1];
        Assert.Equal(unchecked((nint)0x7f0000000000), model.Start);
        Assert.Equal(unchecked((nint)0x7f0000100000), model.End);
        Assert.True(model.Readable);
        Assert.True(model.Shared);
        Assert.True(model.IsFileBacked);
        Assert.Equal("/data/model weights.gguf", model.Path);
        Assert.False(entries[2].Readable);
        Assert.False(entries[4].IsFileBacked);
    }

    [Fact]
    public void FilterWithMaps_KeepsPagesInsideTheFile_AndReportsThePastTheEndPart()
    {
        ProcMapEntry[] maps = ProcMaps.Parse(Maps);
        var failures = new List<RegionFailure>();
        MergedRegion whole = new(unchecked((nint)0x7f0000000000), unchecked((nint)0x7f0000100000), "model", 0);

        // The 1 MiB mapping's file was truncated to 10,000 bytes: pages 0-2 are safe (the third holds the last byte).
        MergedRegion[] safe = TouchSafety.FilterWithMaps([whole], maps, failures, _ => 10_000);

        MergedRegion kept = Assert.Single(safe);
        Assert.Equal(3 * Environment.SystemPageSize, kept.Length);
        RegionFailure failure = Assert.Single(failures);
        Assert.Contains("past the end", failure.Message, StringComparison.Ordinal);
        Assert.Equal(0x100000 - (3 * Environment.SystemPageSize), failure.Length);
    }

    [Fact]
    public void FilterWithMaps_ReportsUnmappedGapsAndUnreadablePages()
    {
        ProcMapEntry[] maps = ProcMaps.Parse(Maps);
        var failures = new List<RegionFailure>();

        // From inside the model mapping, over the ---p guard page, into a gap before the rw-p mapping.
        MergedRegion[] safe = TouchSafety.FilterWithMaps([new(unchecked((nint)0x7f00000ff000), unchecked((nint)0x7f0000201000), "x", 0)], maps, failures, _ => 1L << 30);

        Assert.Equal(2, safe.Length);
        Assert.Equal(2, failures.Count);
        Assert.Contains(failures, f => f.Message.Contains("read permission", StringComparison.Ordinal));
        Assert.Contains(failures, f => f.Message.Contains("not mapped", StringComparison.Ordinal));
    }
}
