using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Platform;

public sealed class ProcMapsTests
{
    [LinuxFact]
    public void ReadSelf_WithARange_ReturnsOnlyTheMappingsThatOverlapIt()
    {
        using TestFile file = TestFile.Create(TestFile.MiB, evict: false);
        using MappedFile map = file.Map();
        PrefaultRegion region = map.Region();

        ProcMapEntry[] all = ProcMaps.ReadSelf();
        ProcMapEntry[] some = ProcMaps.ReadSelf(region.Address, region.End);

        ProcMapEntry mapping = Assert.Single(some);
        Assert.Equal(file.Path, mapping.Path);
        Assert.True(mapping.Start <= region.Address && mapping.End >= region.End);
        Assert.True(all.Length > some.Length);
        Assert.Contains(mapping, all);
    }
}
