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

    [LinuxFact]
    public void Run_AtNormalPriority_LeavesTheNiceValueAlone()
    {
        // 64 chunks: with 8, the helper could sweep them all while the caller was still starting it, and the only
        // report (the last) then saw no sweep thread (2 of 20 runs on a busy machine).
        using TestFile file = TestFile.Create(64 * MiB);
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
                nices.AddRange(WorkerNices());
            }
        });

        using PrefaultHandle handle = MmapPrefault.Start([map.Region()],
            PrefaultOptions.Default with { Progress = progress, ChunkSize = 1 * MiB, MaxDegreeOfParallelism = 2, WorkerPriority = workerPriority });
        handle.Completion.GetAwaiter().GetResult();
        return nices;
    }

    /// <summary>The nice values of this process's sweep threads (named "Sharpi.Prefault*", cut to 15 characters by the kernel).</summary>
    private static IEnumerable<int> WorkerNices()
    {
        foreach (string task in Directory.EnumerateDirectories("/proc/self/task"))
        {
            string comm;
            try
            {
                comm = File.ReadAllText(Path.Combine(task, "comm")).Trim();
            }
            catch (IOException)
            {
                continue; // the thread ended
            }

            if (comm.StartsWith("Sharpi.Prefault", StringComparison.Ordinal) && ThreadNice(task) is int nice)
            {
                yield return nice;
            }
        }
    }

    /// <summary>Field 19 of /proc/.../stat: the nice value (fields counted after the parenthesised name).</summary>
    private static int? ThreadNice(string task)
    {
        try
        {
            string stat = File.ReadAllText(task.StartsWith('/') ? Path.Combine(task, "stat") : $"/proc/{task}/stat");
            string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
            return int.Parse(fields[16], System.Globalization.CultureInfo.InvariantCulture);
        }
        catch (IOException)
        {
            return null;
        }
    }
}
