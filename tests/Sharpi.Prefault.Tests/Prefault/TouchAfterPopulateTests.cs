namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// After a populate, each 2 MiB span is sampled (one page in 16 read through the kernel, timed) and read whole only
/// where the sample was slow. The sweeps here run over real, cold files; the threshold is set to the two extremes so
/// the outcome does not depend on this machine's timing. Which pages a sample reads is counted in this process's page
/// tables (anonymous memory, which the kernel maps one page per fault).
/// </summary>
public sealed class TouchAfterPopulateTests
{
    private const long MiB = TestFile.MiB;

    [Fact]
    public void IsSlow_WithNoPagesSampled_IsFalse() =>
        Assert.False(TouchAfterPopulate.IsSlow(System.Diagnostics.Stopwatch.Frequency, pages: 0, slowPageNanoseconds: 0));

    [Fact]
    public void IsSlow_ComparesTheTimeAPageWithTheThreshold()
    {
        long oneMillisecond = System.Diagnostics.Stopwatch.Frequency / 1000;

        Assert.True(TouchAfterPopulate.IsSlow(oneMillisecond, pages: 100, slowPageNanoseconds: 2_000)); // 10,000 ns a page
        Assert.False(TouchAfterPopulate.IsSlow(oneMillisecond, pages: 1_000, slowPageNanoseconds: 2_000)); // 1,000 ns a page
    }

    /// <summary>Threshold 0: every sample is slow, every span is read whole; infinity: none is, only the samples are read.</summary>
    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData(0.0, true)]
    [InlineData(double.PositiveInfinity, false)]
    public void Sweep_ReadsWhole_ExactlyTheSpansWhoseSampleWasSlow(double slowPageNanoseconds, bool everySpanSlow)
    {
        using TestFile file = TestFile.Create(16 * MiB);
        using MappedFile map = file.Map();

        PrefaultRegion region = map.Region();
        var chunk = new ChunkSweep([new MergedRegion(region.Address, region.End, "cold", 0)], Populate) { SlowPageNanoseconds = slowPageNanoseconds };

        long before = System.Diagnostics.Stopwatch.GetTimestamp();
        long swept = chunk.SweepChunk(0, region.Address, region.End);
        double bracketNanoseconds = System.Diagnostics.Stopwatch.GetElapsedTime(before).TotalMilliseconds * 1e6;

        Assert.Equal(SpansOf(region), chunk.SpansSampled);
        Assert.Equal(everySpanSlow ? chunk.SpansSampled : 0, chunk.SpansTouched);
        // The sampled reads happened inside the call: their time a page, times the pages sampled, fits in its bracket.
        long sampledPages = chunk.SpansSampled * (TouchAfterPopulate.SpanBytes / Environment.SystemPageSize / TouchAfterPopulate.SamplePages);
        Assert.InRange(chunk.SampledNanosecondsPerPage * sampledPages, double.Epsilon, bracketNanoseconds);
        Assert.Equal(file.Length, swept);
        Assert.Equal(100.0, map.ResidentPercent());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_OverAColdFile_SamplesAfterPopulateUnderAHypervisor_AndLogsWhatItDid()
    {
        FirstAccessProbe.Override.Value = new FirstAccessProbe.Costs(0, 0, 0); // the static rule, whatever an earlier trial measured here
        // Under a hypervisor (this machine's CPU says which) every span is sampled; on bare metal none, and a Debug line
        // says why.
        using TestFile file = TestFile.Create(8 * MiB);
        using MappedFile map = file.Map();
        var log = new ListLogger();

        PrefaultResult result = MmapPrefault.Run([map.Region()], new PrefaultOptions { RamGate = RamGate.Always, Logger = log, ChunkSize = 2 * MiB });

        Assert.True(result.HasRun, result.Reason);
        Assert.Equal(PrefaultMethod.Populate, result.Method);
        if (Hypervisor.IsPresent || FreePageReporting.IsActive)
        {
            IReadOnlyDictionary<string, object?> fields = Assert.Single(log.Fields, f => f.ContainsKey("SampledNanosecondsPerPage"));
            Assert.Equal(SpansOf(map.Region()), fields["SpansSampled"]);
            Assert.True((double)fields["SampledNanosecondsPerPage"]! > 0);
            Assert.DoesNotContain(15, log.EventIds);
        }
        else
        {
            Assert.DoesNotContain(log.Fields, f => f.ContainsKey("SampledNanosecondsPerPage"));
            Assert.Contains(15, log.EventIds);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_OverAWarmFile_SamplesNothing()
    {
        // Nothing was just read, so there is no first access to pay for.
        using TestFile file = TestFile.Create(8 * MiB, evict: false);
        using MappedFile map = file.Map();
        Assert.True(MmapPrefault.Run([map.Region()], new PrefaultOptions { RamGate = RamGate.Always }).HasRun);
        var log = new ListLogger();

        PrefaultResult result = MmapPrefault.Run([map.Region()], new PrefaultOptions { RamGate = RamGate.Always, Logger = log });

        Assert.True(result.HasRun, result.Reason);
        Assert.Equal(file.Length, result.BytesAlreadyResident);
        Assert.DoesNotContain(log.Fields, f => f.ContainsKey("SampledNanosecondsPerPage"));
        Assert.DoesNotContain(15, log.EventIds); // it could not have sampled, so nothing is said of the hypervisor
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void StridedTouch_ReadsOnePageInEachStride_AndNoOther()
    {
        const int Pages = 100;
        nint page = Environment.SystemPageSize;
        nint start = NativeTestMethods.MapAnonymous(Pages * page);
        try
        {
            Assert.Equal(0, PageMap.CountPresent(start, Pages * page));
            byte sink = 0;

            // An unaligned start: its own page is read, then one page every 16 from it.
            nint stopped = SafeTouch.Touch(start + 100, start + (Pages * page), TouchAfterPopulate.SamplePages * page, ref sink, out PlatformError error);

            Assert.Equal(start + (Pages * page), stopped);
            Assert.Equal(PlatformError.None, error);
            Assert.Equal((Pages + TouchAfterPopulate.SamplePages - 1) / TouchAfterPopulate.SamplePages, PageMap.CountPresent(start, Pages * page));
            for (int i = 0; i < Pages; i++)
            {
                Assert.Equal(i % TouchAfterPopulate.SamplePages == 0, PageMap.IsPresent(start + (i * page)));
            }
        }
        finally
        {
            NativeTestMethods.Unmap(start, Pages * page);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void StridedTouch_OfATruncatedMapping_StopsAtTheFirstSampledPagePastTheEnd_WithEfault()
    {
        using TestFile file = TestFile.Create(64 * 4096);
        using MappedFile map = file.Map();
        using (var stream = new FileStream(file.Path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite))
        {
            stream.SetLength(40 * 4096);
        }

        nint start = map.Region().Address;
        byte sink = 0;
        nint stopped = SafeTouch.Touch(start + 10, start + (64 * 4096), TouchAfterPopulate.SamplePages * 4096, ref sink, out PlatformError error);

        // Samples at pages 0, 16, 32 and 48: 48 is the first past the new end (page 40).
        Assert.Equal(start + (48 * 4096), stopped);
        Assert.Equal(PlatformError.FromErrno("process_vm_readv", global::Interop.LinuxConstants.EFAULT), error);
    }

    /// <summary>The 2 MiB-aligned spans a region covers.</summary>
    private static long SpansOf(PrefaultRegion region)
    {
        long span = TouchAfterPopulate.SpanBytes;
        long first = region.Address / span;
        long last = (region.Address + region.Length - 1) / span;
        return last - first + 1;
    }

    private static SweepMechanism Populate { get; } = new(PrefaultMethod.Populate, HintsFirst: false, TouchAfter.Sampled, []);
}
