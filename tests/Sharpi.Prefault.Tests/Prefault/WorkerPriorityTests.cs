using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// The sweep threads' real priority on Linux. Serialized: the check reads every thread named "Sharpi.Prefault" in the
/// process, and a run of another test at the same time would add threads at the normal nice value.
/// </summary>
[Collection(SerializedEnvironment.Name)]
public sealed class WorkerPriorityTests
{
    private const long MiB = TestFile.MiB;

    [LinuxFact]
    public void Start_ReadingInWindows_ReadsAheadAtNiceTen_AndSweepsBesideItAtNiceNineteen_OnNoMoreHelpersThanCores()
    {
        // Thread.Priority alone leaves an unprivileged thread at nice 0 on Linux; the threads must really yield. Where
        // the run reads in windows (no huge-page advice), the background thread (the one that reports) reads ahead at
        // nice 10, and the helpers beside it, at most one per processor, sweep at nice 19: an init that keeps every
        // core busy loses little to them. Before, every thread ran at nice 10, max(8, cores) of them.
        (List<int> reader, List<(string Task, int Nice, int Policy)> others) = ThreadsDuringStart(workerPriority: null, hugePages: false);

        Assert.NotEmpty(reader);
        Assert.All(reader, nice => Assert.Equal(WorkerPriority.BelowNormalNice, nice));
        List<string> helpers = [.. others.Select(o => o.Task).Distinct()];
        Assert.NotEmpty(helpers);
        Assert.InRange(helpers.Count, 1, Environment.ProcessorCount);
        Assert.All(others, o => Assert.Equal((WorkerPriority.LowestNice, ThreadScheduling.Other), (o.Nice, o.Policy)));
    }

    [HugePageRunFact]
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

    [LinuxTheory]
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

    [LinuxFact]
    public void Run_AtNormalPriority_LeavesTheNiceValueAlone()
    {
        using TestFile file = TestFile.Create(8 * MiB);
        using MappedFile map = file.Map();
        var nices = new List<int>();
        var progress = new CallbackProgress(_ =>
        {
            nices.Add(ThreadNice("thread-self") ?? -1); // the caller's thread sweeps too
            nices.AddRange(WorkerNices());
        });

        MmapPrefault.Run([map.Region()], PrefaultOptions.Default with { Progress = progress, ChunkSize = MiB, MaxDegreeOfParallelism = 2 });

        Assert.True(nices.Count > 1, "no sweep thread was seen");
        Assert.All(nices, nice => Assert.Equal(0, nice));
    }

    /// <summary>
    /// What a Start over a cold 256 MiB file (1 MiB chunks; with or without the huge-page advice) runs on, read at each progress report: the reporting
    /// thread's nice value (the background thread), and every other thread of the sweep's with its policy. The first
    /// report waits until the other threads show (at most 30 s): it comes after the background thread's first chunk,
    /// long before a cold 256 MiB is swept, and the helpers sweep on meanwhile.
    /// </summary>
    private static (List<int> Reader, List<(string Task, int Nice, int Policy)> Others) ThreadsDuringStart(ThreadPriority? workerPriority, bool hugePages)
    {
        using TestFile file = TestFile.Create(256 * MiB);
        using MappedFile map = file.Map();
        var reader = new List<int>();
        var others = new List<(string Task, int Nice, int Policy)>();
        var progress = new CallbackProgress(_ =>
        {
            string self = ThreadScheduling.CurrentTask();
            reader.Add(ThreadScheduling.OfCurrent().Nice);
            long until = Environment.TickCount64 + 30_000;
            do
            {
                others.AddRange(ThreadScheduling.Named("Sharpi.Prefault").Where(t => t.Task != self));
            }
            while (others.Count == 0 && reader.Count == 1 && Environment.TickCount64 < until);
        });

        using PrefaultHandle handle = MmapPrefault.Start([map.Region()],
            PrefaultOptions.Default with { Progress = progress, ChunkSize = 1 * MiB, WorkerPriority = workerPriority, IsHugePageAdviceEnabled = hugePages });
        handle.Wait();
        return (reader, others);
    }

    /// <summary>The nice values of this process's sweep threads (named "Sharpi.Prefault*", cut to 15 characters by the kernel).</summary>
    private static IEnumerable<int> WorkerNices() => ThreadScheduling.Named("Sharpi.Prefault").Select(t => t.Nice);

    /// <summary>Field 19 of /proc/.../stat: the nice value.</summary>
    private static int? ThreadNice(string task) => ThreadScheduling.Of(task.StartsWith('/') ? task : $"/proc/{task}")?.Nice;
}
