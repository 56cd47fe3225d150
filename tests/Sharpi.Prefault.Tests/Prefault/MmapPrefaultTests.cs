using System.Diagnostics;
using System.IO.MemoryMappedFiles;
using System.Runtime.InteropServices;
using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>Run over real files, evicted from the page cache, with residency checked by mincore.</summary>
public sealed class MmapPrefaultTests
{
    private const long MiB = TestFile.MiB;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_OnAnEvictedFile_MakesItFullyResident()
    {
        using TestFile file = TestFile.Create(256 * MiB);
        using MappedFile map = file.Map();
        Assert.True(map.ResidentPercent() < 1, $"expected a cold file, got {map.ResidentPercent():F1}% resident");

        long started = Stopwatch.GetTimestamp();
        PrefaultResult result = MmapPrefault.Run([map.Region("weights")]);
        TimeSpan bracket = Stopwatch.GetElapsedTime(started);

        Assert.True(result.HasRun, result.Reason);
        Assert.Empty(result.Failures);
        Assert.Equal(file.Length, result.Bytes);
        Assert.Equal(100.0, map.ResidentPercent(), 3);
        // The result's residency is mincore's, measured after the sweep.
        Assert.Equal(Residency.Measure(map.Region()).ResidentBytes, result.BytesResident);
        Assert.Equal(file.Length, result.BytesResident);
        // The rate is the bytes over the run's own time, which the call's bracket contains (a cold 256 MiB is no instant).
        Assert.InRange(result.Elapsed, TimeSpan.FromTicks(1), bracket);
        Assert.Equal(file.Length / (double)(1L << 30) / result.Elapsed.TotalSeconds, result.GiBPerSecond, 9);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_OnThisKernel_UsesPopulate()
    {
        using TestFile file = TestFile.Create(8 * MiB);
        using MappedFile map = file.Map();
        bool supported = PopulateSupport.IsSupported(out _);

        PrefaultResult result = MmapPrefault.Run([map.Region()]);

        // MADV_POPULATE_READ arrived in 5.14: the probe must find it there, and Run must then use it.
        if (Environment.OSVersion.Version >= new Version(5, 14))
        {
            Assert.True(supported, "the populate probe failed on a kernel that has MADV_POPULATE_READ");
        }

        Assert.Equal(supported ? PrefaultMethod.Populate : PrefaultMethod.Touch, result.Method);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithTouchStrategy_MakesItFullyResident()
    {
        using TestFile file = TestFile.Create(128 * MiB);
        using MappedFile map = file.Map();

        PrefaultResult result = MmapPrefault.Run([map.Region()], new PrefaultOptions { Strategy = PrefaultStrategy.Touch });

        Assert.Equal(PrefaultMethod.Touch, result.Method);
        Assert.Equal(file.Length, result.Bytes);
        Assert.Equal(100.0, map.ResidentPercent(), 3);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_MeasuresWhatWasAlreadyResident()
    {
        using TestFile file = TestFile.Create(64 * MiB);
        using (FileStream stream = File.OpenRead(file.Path))
        {
            stream.ReadExactly(new byte[16 * MiB]);
        }

        using MappedFile map = file.Map();

        PrefaultResult result = MmapPrefault.Run([map.Region()]);

        // Read-ahead may have brought in a little more than the 16 MiB read.
        Assert.InRange(result.BytesAlreadyResident, 16 * MiB, 24 * MiB);
        Assert.Equal(100.0, map.ResidentPercent(), 3);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_OverlappingAndDuplicateRegions_CountsEachByteOnce()
    {
        using TestFile file = TestFile.Create(32 * MiB);
        using MappedFile map = file.Map();

        PrefaultResult result = MmapPrefault.Run([map.Region(0, 16 * MiB, "a"), map.Region(0, 16 * MiB, "a"), map.Region(8 * MiB, 24 * MiB, "b")]);

        Assert.Equal(1, result.RegionCount);
        Assert.Equal(32 * MiB, result.BytesRequested);
        Assert.Equal(32 * MiB, result.Bytes);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithProgress_ReportsMonotonicBytesEndingAtTheTotal()
    {
        using TestFile file = TestFile.Create(64 * MiB);
        using MappedFile map = file.Map();
        var reports = new List<PrefaultProgress>();
        var progress = new SynchronousProgress(reports.Add);

        PrefaultResult result = MmapPrefault.Run([map.Region()], new PrefaultOptions { Progress = progress, ChunkSize = 4 * MiB, Label = "p" });

        Assert.NotEmpty(reports);
        Assert.Equal(result.Bytes, reports[^1].BytesDone);
        Assert.All(reports, r => Assert.Equal(64 * MiB, r.BytesTotal));
        Assert.Equal(reports.Select(r => r.BytesDone).Order(), reports.Select(r => r.BytesDone));
        // At most one a chunk (16 of 4 MiB) and the first; the ten-a-second rule is ProgressReporterTests', on a clock it moves.
        Assert.InRange(reports.Count, 1, 16 + 1);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WhenCancelledMidway_StopsBetweenChunks_AndSaysSo()
    {
        using TestFile file = TestFile.Create(128 * MiB);
        using MappedFile map = file.Map();
        using var cts = new CancellationTokenSource();
        var progress = new SynchronousProgress(_ => cts.Cancel());
        PrefaultOptions options = new PrefaultOptions
        {
            ChunkSize = 1 * MiB,
            MaxDegreeOfParallelism = 1,
            Progress = progress,
        };

        // The first progress report comes after the first chunk that takes the reporter past its interval; from a
        // cold disk that is well before the end. Cancel before starting, too, to pin the "nothing ran" edge.
        PrefaultResult result = MmapPrefault.Run([map.Region()], options, cts.Token);

        Assert.True(result.IsCanceled, result.Reason);
        Assert.InRange(result.Bytes, 0, file.Length - 1);
        Assert.Equal(file.Length - result.Bytes, result.BytesSkipped);
        Assert.True(map.ResidentPercent() < 100, "a cancelled sweep must leave the rest alone");
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithAnAlreadyCancelledToken_TouchesNothing()
    {
        using TestFile file = TestFile.Create(16 * MiB);
        using MappedFile map = file.Map();

        PrefaultResult result = MmapPrefault.Run([map.Region()], cancellationToken: new CancellationToken(canceled: true));

        Assert.True(result.IsCanceled);
        Assert.False(result.HasRun, result.Reason);
        Assert.Equal(0, result.Bytes);
        Assert.True(map.ResidentPercent() < 1);
        Assert.DoesNotContain("hg", Sharpi.Prefault.Tests.Platform.HugePageAdviceTests.VmFlags(map.Region().Address)); // nor advised
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithALoggerThatThrows_ReturnsAFailedResult_InsteadOfThrowingIntoTheEngine()
    {
        using TestFile file = TestFile.Create(4 * MiB);
        using MappedFile map = file.Map();

        PrefaultResult result = MmapPrefault.Run([map.Region()], new PrefaultOptions { Logger = new ThrowingLogger() });

        Assert.False(result.HasRun);
        Assert.Contains(ThrowingLogger.Message, result.Reason, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_HintOnly_WithAnAlreadyCancelledToken_HintsNothing_AndSaysItWasCancelled()
    {
        using TestFile file = TestFile.Create(16 * MiB);
        file.Evict();
        using MappedFile map = file.Map();

        PrefaultResult result = MmapPrefault.Run([map.Region()], new PrefaultOptions { Strategy = PrefaultStrategy.HintOnly },
            new CancellationToken(canceled: true));

        Assert.True(result.IsCanceled, result.Reason);
        Assert.False(result.HasRun, result.Reason);
        Assert.Equal(PrefaultMethod.None, result.Method);
        Assert.Contains("cancelled before the sweep began", result.Reason, StringComparison.Ordinal);
        Thread.Sleep(200); // a WILLNEED hint reads asynchronously: give it the time to show
        Assert.True(map.ResidentPercent() < 1, $"{map.ResidentPercent()}% resident: something was hinted");
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_FromSeveralThreadsAtOnce_AllComplete()
    {
        using TestFile a = TestFile.Create(64 * MiB);
        using TestFile b = TestFile.Create(64 * MiB);
        using MappedFile mapA = a.Map();
        using MappedFile mapB = b.Map();
        PrefaultRegion[][] work = [[mapA.Region()], [mapB.Region()], [mapA.Region(0, 32 * MiB)], [mapB.Region(16 * MiB, 48 * MiB)]];

        PrefaultResult[] results = work.AsParallel().WithDegreeOfParallelism(4).Select(r => MmapPrefault.Run(r)).ToArray();

        Assert.All(results, r => Assert.True(r.HasRun && r.Failures.Count == 0 && !r.IsCanceled, r.Reason));
        Assert.Equal(100.0, mapA.ResidentPercent(), 3);
        Assert.Equal(100.0, mapB.ResidentPercent(), 3);
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData(PrefaultStrategy.Auto)]
    [InlineData(PrefaultStrategy.Touch)]
    public void Run_OverATruncatedFile_ReportsThePagesPastTheEnd_AndDoesNotKillTheProcess(PrefaultStrategy strategy)
    {
        using TestFile file = TestFile.Create(64 * MiB);
        using MappedFile map = file.Map();
        using (var shrink = new FileStream(file.Path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete))
        {
            // Another writer truncates the model under the live mapping: reading past 16 MiB would raise SIGBUS.
            shrink.SetLength(16 * MiB);
        }

        PrefaultResult result = MmapPrefault.Run([map.Region("truncated")], new PrefaultOptions { Strategy = strategy, ChunkSize = 4 * MiB });

        Assert.True(result.HasRun);
        Assert.NotEmpty(result.Failures);
        Assert.All(result.Failures, f => Assert.Equal("truncated", f.Name));
        Assert.Equal(16 * MiB, result.Bytes);
        Assert.Equal(100.0, Residency.Measure(map.Region(0, 16 * MiB)).Percent, 3);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void Run_OverAMappingLongerThanItsFile_CountsThePagesBeforeTheEnd_AndFailsOnlyThePagesPast()
    {
        // 4 MiB mapped over a file of 1 MiB + 12 KiB, inside one 32 MiB chunk: the populate stops at the file's end.
        long fileBytes = MiB + (3 * 4096);
        using TestFile file = TestFile.Create(fileBytes);
        using var view = Mappings.NativeMmap.Map(file.Path, 0, 4 * MiB);

        PrefaultResult result = MmapPrefault.Run([new PrefaultRegion(view.Address, 4 * MiB, "longer")], new PrefaultOptions { RamGate = RamGate.Always });

        Assert.Equal(PrefaultMethod.Populate, result.Method);
        Assert.Equal(fileBytes, result.Bytes);
        RegionFailure failure = Assert.Single(result.Failures);
        Assert.Equal((4 * MiB) - fileBytes, failure.Length);
        Assert.Equal(100.0, Residency.OfFile(file.Path).Percent, 3);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_OverAnUnmappedRange_SkipsIt_AndStillRunsTheRest()
    {
        using TestFile live = TestFile.Create(16 * MiB);
        using MappedFile liveMap = live.Map();
        nint gone = Unmapped.Address(4 * MiB);

        PrefaultResult result = MmapPrefault.Run([new PrefaultRegion(gone, 4 * MiB, "unmapped"), liveMap.Region("live")]);

        RegionFailure failure = Assert.Single(result.Failures);
        Assert.Equal("unmapped", failure.Name);
        Assert.Equal(16 * MiB, result.Bytes);
        Assert.Equal(100.0, liveMap.ResidentPercent(), 3);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_LogsOneInformationLinePerRun()
    {
        using TestFile file = TestFile.Create(8 * MiB);
        using MappedFile map = file.Map();
        var log = new ListLogger();

        MmapPrefault.Run([map.Region()], new PrefaultOptions { Logger = log, Label = "engine" });

        string line = Assert.Single(log.At(LogLevel.Information));
        Assert.StartsWith("[engine] Pre-faulted 8,388,608 bytes", line, StringComparison.Ordinal);
        Assert.Contains("GiB/s) via ", line, StringComparison.Ordinal);
    }

    [Fact]
    public void Run_LogsItsFiguresAsNumbers_NotAsFormattedText()
    {
        using TestFile file = TestFile.Create(8 * MiB);
        using MappedFile map = file.Map();
        var log = new ListLogger();

        MmapPrefault.Run([map.Region()], new PrefaultOptions { Logger = log, Label = "engine" });

        IReadOnlyDictionary<string, object?> fields = Assert.Single(log.Fields, f => f.ContainsKey("BytesAlreadyResident"));
        Assert.Equal(8 * MiB, Assert.IsType<long>(fields["Bytes"]));
        Assert.IsType<long>(fields["BytesAlreadyResident"]);
        Assert.IsType<double>(fields["GiBPerSecond"]);
        Assert.Equal("engine", fields["Label"]);
    }

    [Fact]
    public void Run_WithNoRegions_DoesNotRun()
    {
        PrefaultResult result = MmapPrefault.Run([], PrefaultOptions.Default);

        Assert.False(result.HasRun);
        Assert.Equal(PrefaultMethod.None, result.Method);
    }

    [Fact]
    public void Run_WithNegativeLength_ThrowsArgumentException()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => MmapPrefault.Run([new PrefaultRegion(0x1000, -1)]));
    }

    [Fact]
    public void Run_WithNullList_Throws()
    {
        Assert.Throws<ArgumentNullException>(() => MmapPrefault.Run((IReadOnlyList<PrefaultRegion>)null!));
    }

    [Fact]
    public void FromView_WithARangeOutsideTheView_Throws()
    {
        using TestFile file = TestFile.Create(MiB, evict: false);
        using MappedFile map = file.MapView();

        Assert.Throws<ArgumentOutOfRangeException>(() => PrefaultRegion.FromView(map.View, -1, 10));
        Assert.Throws<ArgumentOutOfRangeException>(() => PrefaultRegion.FromView(map.View, 0, MiB + 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => PrefaultRegion.FromView(map.View, MiB - 10, 11));
        Assert.Throws<ArgumentOutOfRangeException>(() => PrefaultRegion.FromView(map.View.SafeMemoryMappedViewHandle, 0, -1));
    }

    [Fact]
    public void FromView_PointsAtTheViewsBytes()
    {
        using TestFile file = TestFile.Create(MiB, evict: false);
        using MappedFile map = file.MapView();
        byte[] expected = File.ReadAllBytes(file.Path).AsSpan(4097, 100).ToArray();

        PrefaultRegion region = PrefaultRegion.FromView(map.View, 4097, 100, "t");

        unsafe
        {
            Assert.Equal(expected, new ReadOnlySpan<byte>((void*)region.Address, 100).ToArray());
        }
    }

    [Fact]
    public void FromView_OfAnOffsetView_AccountsForThePointerOffset()
    {
        using TestFile file = TestFile.Create(MiB, evict: false);
        using var mmf = MemoryMappedFile.CreateFromFile(file.Path, FileMode.Open, null, 0, MemoryMappedFileAccess.Read);
        using MemoryMappedViewAccessor view = mmf.CreateViewAccessor(5000, 1000, MemoryMappedFileAccess.Read);
        byte expected = File.ReadAllBytes(file.Path)[5000 + 10];

        PrefaultRegion region = PrefaultRegion.FromView(view, 10, 1);

        Assert.Equal(expected, Marshal.ReadByte(region.Address));
    }

    /// <summary>IProgress that calls back on the reporting thread (Progress&lt;T&gt; would post to the thread pool).</summary>
    private sealed class SynchronousProgress(Action<PrefaultProgress> report) : IProgress<PrefaultProgress>
    {
        public void Report(PrefaultProgress value) => report(value);
    }
}
