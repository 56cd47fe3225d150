using Microsoft.Extensions.Logging;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// After a populate, each chunk is sampled (one page in 16 read through the kernel, timed) and read whole only where
/// the sample was slow. The sweeps here run over real, cold files; the threshold is set to the two extremes so the
/// outcome does not depend on this machine's timing.
/// </summary>
public sealed class TouchAfterPopulateTests
{
    private const long MiB = TestFile.MiB;

    [Theory]
    [InlineData(0, 10, false)]
    [InlineData(1, 0, false)]
    public void IsSlow_WithNothingToJudge_IsFalse(long ticks, long pages, bool slow) =>
        Assert.Equal(slow, TouchAfterPopulate.IsSlow(ticks, pages, TouchAfterPopulate.SlowPageNanoseconds));

    [Fact]
    public void IsSlow_ComparesTheTimeAPageWithTheThreshold()
    {
        long oneMillisecond = System.Diagnostics.Stopwatch.Frequency / 1000;

        Assert.True(TouchAfterPopulate.IsSlow(oneMillisecond, pages: 100, slowPageNanoseconds: 2_000)); // 10,000 ns a page
        Assert.False(TouchAfterPopulate.IsSlow(oneMillisecond, pages: 1_000, slowPageNanoseconds: 2_000)); // 1,000 ns a page
    }

    [LinuxFact]
    public void Sweep_WhenEverySampleIsSlow_ReadsEveryChunkWhole()
    {
        using TestFile file = TestFile.Create(16 * MiB);
        using MappedFile map = file.Map();

        StrideSweep sweep = SweepCold(map, slowPageNanoseconds: 0);

        Assert.Equal(sweep.ChunkCount, sweep.ChunksTouched);
        Assert.True(sweep.SampledNanosecondsPerPage > 0);
        Assert.Equal(file.Length, sweep.BytesDone);
        Assert.Equal(100.0, map.ResidentPercent());
    }

    [LinuxFact]
    public void Sweep_WhenNoSampleIsSlow_ReadsOnlyTheSamples()
    {
        using TestFile file = TestFile.Create(16 * MiB);
        using MappedFile map = file.Map();

        StrideSweep sweep = SweepCold(map, slowPageNanoseconds: double.PositiveInfinity);

        Assert.Equal(0, sweep.ChunksTouched);
        Assert.True(sweep.SampledNanosecondsPerPage > 0);
        Assert.Equal(file.Length, sweep.BytesDone);
        Assert.Equal(100.0, map.ResidentPercent());
    }

    [LinuxFact]
    public void Run_OverAColdFile_SamplesAfterPopulate_AndLogsWhatItRead()
    {
        using TestFile file = TestFile.Create(8 * MiB);
        using MappedFile map = file.Map();
        var log = new ListLogger();

        PrefaultResult result = MmapPrefault.Run([map.Region()], PrefaultOptions.Default with { RamGate = RamGate.Always, Logger = log, ChunkSize = 2 * MiB });

        Assert.True(result.HasRun, result.Reason);
        Assert.Equal(PrefaultMethod.Populate, result.Method);
        IReadOnlyDictionary<string, object?> fields = Assert.Single(log.Fields, f => f.ContainsKey("SampledNanosecondsPerPage"));
        Assert.Equal(4L, fields["Chunks"]);
        Assert.InRange((long)fields["ChunksTouched"]!, 0, 4);
    }

    [LinuxFact]
    public void Run_OverAWarmFile_SamplesNothing()
    {
        // Nothing was just read, so there is no first access to pay for.
        using TestFile file = TestFile.Create(8 * MiB, evict: false);
        using MappedFile map = file.Map();
        Assert.True(MmapPrefault.Run([map.Region()], PrefaultOptions.Default with { RamGate = RamGate.Always }).HasRun);
        var log = new ListLogger();

        PrefaultResult result = MmapPrefault.Run([map.Region()], PrefaultOptions.Default with { RamGate = RamGate.Always, Logger = log });

        Assert.True(result.HasRun, result.Reason);
        Assert.Equal(file.Length, result.BytesAlreadyResident);
        Assert.DoesNotContain(log.Fields, f => f.ContainsKey("SampledNanosecondsPerPage"));
    }

    private static StrideSweep SweepCold(MappedFile map, double slowPageNanoseconds)
    {
        MergedRegion[] regions = RegionSet.Merge([map.Region()]);
        var sweep = new StrideSweep(regions, 2 * MiB, populate: true, touchAfterPopulate: true, regionDone: null, CancellationToken.None)
        {
            SlowPageNanoseconds = slowPageNanoseconds,
        };
        Assert.Equal(2, sweep.Execute(maxThreads: 2, ThreadPriority.Normal, progress: null));
        return sweep;
    }
}
