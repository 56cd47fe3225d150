using System.Runtime.Versioning;
using Sharpi.Prefault.Tests.Models;

namespace Sharpi.Prefault.Tests.Mappings;

/// <summary>Mappings made with mmap outside the library, found through the process's own view of its mappings.</summary>
[SupportedOSPlatform("linux")]
public sealed class NativeMappingsTests : IDisposable
{
    private const long MiB = TestFile.MiB;
    private static readonly long PageSize = Environment.SystemPageSize;

    private readonly TempModelDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    private string WriteGguf() => _dir.Write("model.gguf", new GgufBuilder()
        .F32("token_embd.weight", 1000).F32("blk.0.ffn_up.weight", 2000).F32("blk.1.ffn_up.weight", 2000).F32("output.weight", 3000).Build());

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void OfFile_FindsAMappingMadeByNativeCode_AndAPrefaultMakesItFullyResident()
    {
        using TestFile file = TestFile.Create(32 * MiB);
        using NativeMmap map = NativeMmap.Map(file.Path, 0, file.Length);

        IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfFile(file.Path);

        PrefaultRegion region = Assert.Single(regions);
        Assert.Equal(map.Address, region.Address);
        Assert.Equal(file.Length, region.Length);
        Assert.True(Residency.Measure(regions).Percent < 5, $"expected a cold file, got {Residency.Measure(regions).Percent:F1}%");
        PrefaultResult result = MmapPrefault.Run(regions);
        Assert.True(result.HasRun, result.Reason);
        Assert.Empty(result.Failures);
        Assert.Equal(100.0, Residency.Measure(regions).Percent, 3);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void OfFile_MappedTwice_YieldsBothRanges()
    {
        using TestFile file = TestFile.Create(1 * MiB, evict: false);
        using NativeMmap first = NativeMmap.Map(file.Path, 0, file.Length);
        using NativeMmap second = NativeMmap.Map(file.Path, 0, file.Length, shared: true);

        IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfFile(file.Path);

        Assert.Equal(new[] { first.Address, second.Address }.Order(), regions.Select(r => r.Address).Order());
        Assert.All(regions, r => Assert.Equal(file.Length, r.Length));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void OfFile_ThroughASymlinkOrAfterARename_StillFindsTheMapping()
    {
        using TestFile file = TestFile.Create(1 * MiB, evict: false);
        using NativeMmap map = NativeMmap.Map(file.Path, 0, file.Length);
        string link = Path.Combine(_dir.Path, "link.bin");
        File.CreateSymbolicLink(link, file.Path);
        string renamed = Path.Combine(_dir.Path, "renamed.bin");

        Assert.Equal(map.Address, Assert.Single(NativeMappings.OfFile(link)).Address);
        File.Move(file.Path, renamed);
        try
        {
            Assert.Equal(map.Address, Assert.Single(NativeMappings.OfFile(renamed)).Address);
        }
        finally
        {
            File.Move(renamed, file.Path);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void OfFile_ThatNothingMaps_IsEmpty()
    {
        using TestFile file = TestFile.Create(1 * MiB, evict: false);

        Assert.Empty(NativeMappings.OfFile(file.Path));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void OfFile_MappingPastTheFilesEnd_EndsAtTheFilesEnd()
    {
        string path = _dir.Write("short.bin", new byte[PageSize + 100]);
        using NativeMmap map = NativeMmap.Map(path, 0, 3 * PageSize);

        PrefaultRegion region = Assert.Single(NativeMappings.OfFile(path));

        Assert.Equal(PageSize + 100, region.Length);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void OfFile_OfADirectoryAFifoOrAMissingFile_Throws()
    {
        string fifo = Path.Combine(_dir.Path, "pipe");
        NativeFifo.Create(fifo);

        Assert.Throws<IOException>(() => NativeMappings.OfFile(_dir.Path));
        Assert.Contains("FIFO", Assert.Throws<IOException>(() => NativeMappings.OfFile(fifo)).Message, StringComparison.Ordinal);
        Assert.Throws<FileNotFoundException>(() => NativeMappings.OfFile(Path.Combine(_dir.Path, "missing.bin")));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void OfTensors_PointAtEachTensorsMappedBytes()
    {
        string path = WriteGguf();
        TensorIndex index = TensorIndex.Read(path);
        using NativeMmap map = NativeMmap.Map(path, 0, new FileInfo(path).Length);

        IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfTensors(index);

        Assert.Equal(index.Tensors.Select(t => t.Name), regions.Select(r => r.Name));
        foreach (PrefaultRegion region in regions)
        {
            TensorInfo tensor = index.Tensors.Single(t => t.Name == region.Name);
            Assert.Equal(map.Address + (nint)tensor.Offset, region.Address);
            Assert.Equal(RegionBytes.OfFile(path, tensor.Offset, tensor.Length), RegionBytes.Of(region));
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void OfTensors_InOrder_PutTheFirstSelectionsTensorsFirst()
    {
        string path = WriteGguf();
        using NativeMmap map = NativeMmap.Map(path, 0, new FileInfo(path).Length);

        IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfTensors(TensorIndex.Read(path), new TensorSelection(include: ["output.*", "blk.1.*"]), TensorSelection.All);

        Assert.Equal(["blk.1.ffn_up.weight", "output.weight", "token_embd.weight", "blk.0.ffn_up.weight"], regions.Select(r => r.Name));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void OfTensors_TensorSplitAcrossTwoMappings_YieldsOneRegionPerPiece()
    {
        string path = WriteGguf();
        TensorIndex index = TensorIndex.Read(path);
        TensorInfo tensor = index.Tensors.Single(t => t.Name == "blk.0.ffn_up.weight");
        long split = (tensor.End - 1) / PageSize * PageSize;
        Assert.True(split > tensor.Offset, "the tensor must cross a page boundary");
        using NativeMmap head = NativeMmap.Map(path, 0, split);
        using NativeMmap tail = NativeMmap.Map(path, split, new FileInfo(path).Length - split);

        IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfTensors(index, new TensorSelection(include: [tensor.Name]));

        Assert.Equal(2, regions.Count);
        Assert.Equal(head.Address + (nint)tensor.Offset, regions.Single(r => r.Length == split - tensor.Offset).Address);
        Assert.Equal(tail.Address, regions.Single(r => r.Length == tensor.End - split).Address);
        byte[] pieces = [.. RegionBytes.Of(regions.Single(r => r.Address != tail.Address)), .. RegionBytes.Of(regions.Single(r => r.Address == tail.Address))];
        Assert.Equal(RegionBytes.OfFile(path, tensor.Offset, tensor.Length), pieces);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void OfTensors_TensorThatNothingMaps_YieldsNone()
    {
        string path = WriteGguf();
        TensorIndex index = TensorIndex.Read(path);
        TensorInfo last = index.Tensors[^1];
        long mapped = last.Offset / PageSize * PageSize;
        using NativeMmap map = NativeMmap.Map(path, 0, mapped);

        IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfTensors(index);

        Assert.DoesNotContain(regions, r => r.Name == last.Name);
        Assert.Contains(regions, r => r.Name == "token_embd.weight");
        Assert.All(regions, r => Assert.True(r.Address >= map.Address && r.End <= map.Address + (nint)mapped, $"{r.Name} lies outside the mapping"));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void OfTensors_OfAModelThatNothingMaps_IsEmpty()
    {
        Assert.Empty(NativeMappings.OfTensors(TensorIndex.Read(WriteGguf())));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void OfTensors_OfAMappedModel_FindsTheLibrarysOwnMappingsToo()
    {
        string path = WriteGguf();
        using MappedModel model = MappedModel.Open(path);

        Assert.Equal(model.Regions(TensorSelection.All), NativeMappings.OfTensors(model.Index!));
    }

    [Fact]
    public void OfTensors_WithNullArguments_ThrowsArgumentNull()
    {
        TensorIndex index = TensorIndex.Read(WriteGguf());

        Assert.Throws<ArgumentNullException>(() => NativeMappings.OfTensors(null!));
        Assert.Throws<ArgumentNullException>(() => NativeMappings.OfTensors(index, null!));
        Assert.Throws<ArgumentNullException>(() => NativeMappings.OfTensors(index, TensorSelection.All, null!));
    }
}
