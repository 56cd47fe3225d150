namespace Sharpi.Prefault.Tests.Platform;

public sealed class ProcMapsTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
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

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData("ends in a space ")]
    [InlineData("two  spaces and a\nnewline")]
    public void ReadSelf_GivesTheMappedFilesNameAsItIs(string name)
    {
        string directory = Directory.CreateTempSubdirectory("sharpi-maps-").FullName;
        string path = System.IO.Path.Combine(directory, name);
        try
        {
            File.WriteAllBytes(path, new byte[64 * 1024]);
            using MappedFile map = MappedFile.ReadOnly(path);
            PrefaultRegion region = map.Region();

            ProcMapEntry mapping = Assert.Single(ProcMaps.ReadSelf(region.Address, region.End));

            Assert.Equal(path, mapping.Path); // not trimmed, and the kernel's "\012" read back as the newline it stands for
            Assert.False(mapping.IsDeleted);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }
}
