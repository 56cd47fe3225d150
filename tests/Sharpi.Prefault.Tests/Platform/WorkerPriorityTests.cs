namespace Sharpi.Prefault.Tests.Platform;

/// <summary>
/// The sweep threads' real priority on Linux. Serialized: the check reads every thread named "Sharpi.Prefault" in the
/// process, and a run of another test at the same time would add threads at the normal nice value.
/// </summary>
[Collection(SerializedEnvironment.Name)]
public sealed class WorkerPriorityTests
{
    private const long MiB = TestFile.MiB;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Start_ReadingInWindows_ReadsAheadAtNiceTen_AndSweepsBesideItAtNiceTen_OnNoMoreHelpersThanCores()
    {
        // Thread.Priority alone leaves an unprivileged thread at nice 0 on Linux; the threads must really yield. Where
        // the run reads in windows (no huge-page advice), the background thread (the one that reports) reads ahead at
        // nice 10, and the helpers beside it, at most one per processor, sweep at nice 10 too: at nice 19 a helper in
        // the middle of its chunk kept Dispose waiting seconds beside busy cores. Before, max(8, cores) threads swept.
        (List<int> reader, List<(string Task, int Nice, int Policy)> others) = ThreadsDuringStart(workerPriority: null, hugePages: false);

        Assert.NotEmpty(reader);
        Assert.All(reader, nice => Assert.Equal(WorkerPriority.BelowNormalNice, nice));
        List<string> helpers = [.. others.Select(o => o.Task).Distinct()];
        Assert.NotEmpty(helpers);
        Assert.InRange(helpers.Count, 1, Environment.ProcessorCount);
        Assert.All(others, o => Assert.Equal((WorkerPriority.BelowNormalNice, ThreadScheduling.Other), (o.Nice, o.Policy)));
        Assert.Equal(0, ThreadScheduling.OfCurrent().Nice); // setpriority(PRIO_PROCESS, 0) lowered the sweep's threads alone, not the engine's
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.HugePageRun))]
    public void Start_WithTwoMiBFolios_SweepsOnEveryThreadAtNiceTen()
    {
        // With the huge-page advice the sweep costs the CPU next to nothing: Start keeps its parallel sweep, every thread
        // below normal (see SweepThreads).
        (List<int> reader, List<(string Task, int Nice, int Policy)> others) = ThreadsDuringStart(workerPriority: null, hugePages: true);

        Assert.NotEmpty(reader);
        Assert.All(reader, nice => Assert.Equal(WorkerPriority.BelowNormalNice, nice));
        Assert.NotEmpty(others);
        Assert.All(others, o => Assert.Equal((WorkerPriority.BelowNormalNice, ThreadScheduling.Other), (o.Nice, o.Policy)));
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData(false)]
    [InlineData(true)]
    public void Start_AskedForNormal_RunsEveryThreadAtNormal(bool hugePages)
    {
        // Normal used to mean "not set", so Start could not be asked for it: its workers went below normal anyway.
        (List<int> reader, List<(string Task, int Nice, int Policy)> others) = ThreadsDuringStart(ThreadPriority.Normal, hugePages);

        Assert.NotEmpty(reader);
        Assert.All(reader, nice => Assert.Equal(0, nice));
        Assert.All(others, o => Assert.Equal((0, ThreadScheduling.Other), (o.Nice, o.Policy)));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.IoThrottle))]
    public void Run_AtNormalPriority_LeavesTheNiceValueAlone()
    {
        // In a child whose reads are capped at 8 MiB/s, so its 16 chunks of a cold 16 MiB file take 2 s on 2 threads and
        // the helper sweeps through the reports (ten a second) however fast the disk: uncapped, it could sweep every
        // chunk while the caller was still starting it, and the only report (the last) then saw no sweep thread (2 of
        // 20 runs on a busy machine with 8 chunks, and still possible with 64).
        using TestFile file = TestFile.Create(16 * MiB);
        using IoThrottleCgroup group = IoThrottleCgroup.Create(8 * MiB);

        var run = ChildProcess.Run([ChildCases.NicesDuringRun, file.Path], group.ProcsFile);

        int[] caller = Nices(ChildProcess.Value(run, "caller"));
        int[] helpers = Nices(ChildProcess.Value(run, "helpers"));
        Assert.NotEmpty(caller);
        Assert.True(helpers.Length > 0, "no sweep thread was seen besides the caller's");
        Assert.All(caller, nice => Assert.Equal(0, nice));
        Assert.All(helpers, nice => Assert.Equal(0, nice));
    }

    private static int[] Nices(string list) =>
        [.. list.Split(',', StringSplitOptions.RemoveEmptyEntries).Select(n => int.Parse(n, System.Globalization.CultureInfo.InvariantCulture))];

    /// <summary>
    /// What a Start over a cold 256 MiB file (1 MiB chunks; with or without the huge-page advice) runs on, read at each
    /// progress report: the reporting thread's nice value (the background thread), and every other thread of the
    /// sweep's with its policy. Reports come from the background thread, and on a busy machine the helpers may have
    /// swept the rest and ended before one comes, so the Start is made again on the file evicted anew (up to five
    /// times) until the other threads show.
    /// </summary>
    private static (List<int> Reader, List<(string Task, int Nice, int Policy)> Others) ThreadsDuringStart(ThreadPriority? workerPriority, bool hugePages)
    {
        using TestFile file = TestFile.Create(256 * MiB);
        var reader = new List<int>();
        var others = new List<(string Task, int Nice, int Policy)>();
        var progress = new CallbackProgress(_ =>
        {
            string self = ThreadScheduling.CurrentTask();
            reader.Add(ThreadScheduling.OfCurrent().Nice);
            others.AddRange(ThreadScheduling.Named("Sharpi.Prefault").Where(t => t.Task != self));
        });

        for (int attempt = 0; attempt < 5 && others.Count == 0; attempt++)
        {
            file.Evict(); // unmapped first (the last attempt's view is gone), so the file is cold again
            using MappedFile map = file.Map();
            using PrefaultHandle handle = MmapPrefault.Start([map.Region()],
                new PrefaultOptions { Progress = progress, ChunkSize = 1 * MiB, WorkerPriority = workerPriority, IsHugePageAdviceEnabled = hugePages });
            handle.Completion.GetAwaiter().GetResult();
        }

        return (reader, others);
    }
}
