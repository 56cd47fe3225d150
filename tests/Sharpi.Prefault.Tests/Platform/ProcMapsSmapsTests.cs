namespace Sharpi.Prefault.Tests.Platform;

public sealed class ProcMapsSmapsTests
{
    private const string Sample = """
        7f12a0000000-7f12a0100000 r--s 00000000 fd:01 1234567                    /models/weights file.gguf
        Size:               1024 kB
        Rss:                 512 kB
        Anonymous:             0 kB
        Locked:                0 kB
        VmFlags: rd mr me ms
        7f12b0000000-7f12b0001000 rw-p 00001000 fd:01 7654321                    /models/patched.bin
        Rss:                   4 kB
        Anonymous:             4 kB
        Locked:                4 kB
        THPeligible:           0
        VmFlags: rd wr mr mw me lo ac
        7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0                          [stack]
        Rss:                  12 kB
        VmFlags: rd wr mr mw me gd ac
        """;

    [Fact]
    public void ParseSmaps_ReadsEachMappingsFigures()
    {
        SmapsSnapshot smaps = ProcMaps.ParseSmaps(Sample);

        Assert.Equal(3, smaps.Maps.Length);
        Assert.Equal(smaps.Maps.Length, smaps.Figures.Length);
        Assert.Equal("/models/weights file.gguf", smaps.Maps[0].Path);
        Assert.Equal(new SmapsFigures(512 * 1024, 0, 0, false), smaps.Figures[0]);
        Assert.Equal(new SmapsFigures(4096, 4096, 4096, true), smaps.Figures[1]);
        Assert.False(smaps.Maps[2].IsFileBacked);
        Assert.False(smaps.Figures[2].IsLocked);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void ReadSelfSmaps_ReadsThisProcesssMappingsWithTheirFigures()
    {
        SmapsSnapshot smaps = ProcMaps.ReadSelfSmaps();

        Assert.NotEmpty(smaps.Maps);
        Assert.Contains(smaps.Figures, f => f.RssBytes > 0);
    }
}
