using System.Globalization;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>The child cases about threads (none left to start in a pids cgroup, the nice a sweep runs at).</summary>
internal static partial class ChildProgram
{
    /// <summary>
    /// In the pids cgroup <paramref name="group"/> (which this process joined before the runtime started): sets its
    /// pids.max to the threads there are now, so not one more can start, then (<paramref name="what"/>) prefaults
    /// <paramref name="path"/> in the background, or reads it with a DirectFileReader, sync and async, as an engine would.
    /// </summary>
    private static int NoThreadsLeft(string group, string path, string what)
    {
        using MappedModel model = MappedModel.OpenFile(path);
        PrefaultRegion region = model.FileRegion(path);
        byte[] buffer = new byte[(int)model.Length];
        var options = new DirectReadOptions { BlockSize = 64 * 1024, MaxReadsInFlight = 4 };

        Console.WriteLine($"length={model.Length}"); // the console starts its own thread on first use: before the freeze
        File.WriteAllText(Path.Combine(group, "pids.max"), File.ReadAllText(Path.Combine(group, "pids.current")).Trim());
        Console.WriteLine($"threadStartRefused={!CanStartAThread()}");
        if (what == "warm-one")
        {
            // Room for one more thread: the first of the warm-up's threads starts, the others are refused.
            int current = int.Parse(File.ReadAllText(Path.Combine(group, "pids.current")).Trim(), CultureInfo.InvariantCulture);
            File.WriteAllText(Path.Combine(group, "pids.max"), (current + 1).ToString(CultureInfo.InvariantCulture));
        }

        if (what is "warm" or "warm-one")
        {
            Task<PageCacheWarmResult> warm = PageCache.WarmAsync(path).AsTask();
            bool completed = warm.Wait(TimeSpan.FromSeconds(30));
            Console.WriteLine($"warmCompleted={completed}");
            if (completed)
            {
                Console.WriteLine($"warmBytes={warm.Result.BytesRead}");
                Console.WriteLine($"warmError={warm.Result.Error}");
            }
        }
        else if (what == "start")
        {
            using PrefaultHandle handle = MmapPrefault.Start([region], new PrefaultOptions { RamGate = RamGate.Always });
            PrefaultResult result = handle.Completion.GetAwaiter().GetResult();
            Console.WriteLine($"startRan={result.HasRun}");
            Console.WriteLine($"startBytes={result.Bytes}");
        }
        else
        {
            using DirectFileReader reader = DirectFileReader.Open(path, options);
            Console.WriteLine($"readBytes={reader.Read(0, buffer)}");
            Console.WriteLine($"readMatches={buffer.AsSpan().SequenceEqual(File.ReadAllBytes(path))}");
            Array.Clear(buffer);
            Console.WriteLine($"readAsyncBytes={reader.ReadAsync(0, buffer).AsTask().GetAwaiter().GetResult()}");
            Console.WriteLine($"readAsyncMatches={buffer.AsSpan().SequenceEqual(File.ReadAllBytes(path))}");
        }

        Console.WriteLine("done");
        return 0;
    }

    /// <summary>
    /// An engine's first <see cref="MmapPrefault.Run(PrefaultRegion[], PrefaultOptions?, CancellationToken)"/> over
    /// <paramref name="path"/>, nothing of the metrics API touched before it: prints whether System.Diagnostics.DiagnosticSource
    /// was loaded before and after it, then starts a <see cref="System.Diagnostics.Metrics.MeterListener"/> (which
    /// is shown every instrument that exists) and runs again, printing the Sharpi.Prefault instruments the listener was
    /// shown for the first run and the runs it counted for the second.
    /// </summary>
    /// <summary>
    /// Runs <see cref="MmapPrefault.Run(IReadOnlyList{PrefaultRegion}, PrefaultOptions?, CancellationToken)"/> at its
    /// default (normal) priority over <paramref name="path"/> on 2 threads in 1 MiB chunks, and prints the nice values
    /// read at each progress report: the calling thread's (<c>caller=0,0,...</c>), which sweeps too, and every other
    /// sweep thread's (<c>helpers=0,...</c>).
    /// </summary>
    private static int NicesDuringRun(string path)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        using MappedFile map = MappedFile.ReadOnly(path);
        var caller = new List<int>();
        var helpers = new List<int>();
        var progress = new CallbackProgress(_ =>
        {
            caller.Add(ThreadScheduling.Of("/proc/thread-self")?.Nice ?? -1);
            helpers.AddRange(ThreadScheduling.Named("Sharpi.Prefault").Select(t => t.Nice));
        });

        MmapPrefault.Run([map.Region()], new PrefaultOptions { Progress = progress, ChunkSize = 1L << 20, MaxDegreeOfParallelism = 2 });
        Console.WriteLine($"caller={string.Join(',', caller)}");
        Console.WriteLine($"helpers={string.Join(',', helpers)}");
        Console.WriteLine("done");
        return 0;
    }

    private static bool CanStartAThread()
    {
        try
        {
            var thread = new Thread(() => { });
            thread.Start();
            thread.Join();
            return true;
        }
        catch (OutOfMemoryException)
        {
            return false;
        }
    }
}
