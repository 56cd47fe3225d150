using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Platform;

/// <summary>
/// The sweep threads' real priority on Linux. Serialized: the check reads every thread named "Sharpi.Prefault" in the
/// process, and a run of another test at the same time would add threads at the normal nice value.
/// </summary>
[Collection(SerializedEnvironment.Name)]
public sealed class WorkerPriorityTests
{
    private const long MiB = TestFile.MiB;

    [LinuxFact]
    public void Start_OnLinux_RunsEveryWorkerAtAHigherNiceValue()
    {
        // Thread.Priority alone leaves an unprivileged thread at nice 0 on Linux; the workers must really yield.
        List<int> nices = WorkerNicesDuringStart(workerPriority: null);

        Assert.NotEmpty(nices);
        Assert.All(nices, nice => Assert.Equal(WorkerPriority.BelowNormalNice, nice));
    }

    [LinuxFact]
    public void Start_AskedForNormal_RunsEveryWorkerAtNormal()
    {
        // Normal used to mean "not set", so Start could not be asked for it: its workers went below normal anyway.
        List<int> nices = WorkerNicesDuringStart(ThreadPriority.Normal);

        Assert.NotEmpty(nices);
        Assert.All(nices, nice => Assert.Equal(0, nice));
    }

    [IoThrottleFact]
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

    /// <summary>The nice values of the sweep threads, read at each progress report of a Start over a 64 MiB file (2 workers, 1 MiB chunks).</summary>
    private static List<int> WorkerNicesDuringStart(ThreadPriority? workerPriority)
    {
        using TestFile file = TestFile.Create(64 * MiB);
        using MappedFile map = file.Map();
        var nices = new List<int>();
        var progress = new CallbackProgress(_ =>
        {
            lock (nices)
            {
                nices.AddRange(ThreadNices.OfSweepThreads());
            }
        });

        using PrefaultHandle handle = MmapPrefault.Start([map.Region()],
            PrefaultOptions.Default with { Progress = progress, ChunkSize = 1 * MiB, MaxDegreeOfParallelism = 2, WorkerPriority = workerPriority });
        handle.Completion.GetAwaiter().GetResult();
        return nices;
    }
}
