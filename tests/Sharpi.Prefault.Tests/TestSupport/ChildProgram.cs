using System.Globalization;
using Sharpi.Prefault.Tests.Mappings;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// The test assembly's own entry point (the test SDK's generated one is turned off): <c>dotnet Sharpi.Prefault.Tests.dll
/// CASE ARGS</c> runs one library case in a child process, for what could kill the test host (a process at
/// vm.max_map_count, which the runtime answers with an abort) or needs a process of its own (a pids cgroup). The test
/// runner loads the assembly and never calls this. Each case prints what it saw as <c>key=value</c> lines, and
/// <c>done</c> last.
/// </summary>
internal static class ChildProgram
{
    public static int Main(string[] args)
    {
        if (args.Length == 0)
        {
            return 2;
        }

        switch (args[0])
        {
            case ChildCases.LockSplitPages:
                return LockSplitPages(args[1], int.Parse(args[2], CultureInfo.InvariantCulture));
            case ChildCases.NoThreadsLeft:
                return NoThreadsLeft(args[1], args[2], args[3]);
            case ChildCases.FirstRunMetrics:
                return FirstRunMetrics(args[1]);
            case ChildCases.StageAtMapLimit:
                return StageAtMapLimit(args[1], int.Parse(args[2], CultureInfo.InvariantCulture), int.Parse(args[3], CultureInfo.InvariantCulture));
            default:
                Console.Error.WriteLine($"unknown case '{args[0]}'");
                return 2;
        }
    }

    /// <summary>
    /// Maps each file of <paramref name="folder"/> copy-on-write and read-write (as ONNX Runtime maps initializers), fills
    /// the process with small anonymous mappings until <paramref name="slotsLeft"/> remain under vm.max_map_count, then
    /// prefaults every file's mapping whole: a staging view per file past the room aborted the runtime (exit 134).
    /// </summary>
    private static unsafe int StageAtMapLimit(string folder, int files, int slotsLeft)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        long page = Environment.SystemPageSize;
        var maps = new List<NativeMmap>();
        for (int i = 0; i < files; i++)
        {
            string path = Path.Combine(folder, $"f{i}");
            PageCache.Evict(path); // cold: the sweep has something to read, so it stages
            maps.Add(NativeMmap.Map(path, 0, 16 * page, writable: true));
        }

        long limit = MappingRoom.ReadLimit() ?? 65530;
        var filler = new List<nint>();
        for (long count = MappingRoom.CountSelfMappings(); count < limit - slotsLeft; count++)
        {
            // Alternating protections keep neighbours from merging into one mapping.
            int protection = filler.Count % 2 == 0 ? NativeTestMethods.ProtRead : NativeTestMethods.ProtRead | NativeTestMethods.ProtWrite;
            filler.Add(NativeTestMethods.Map(page, protection, NativeTestMethods.MapPrivate | NativeTestMethods.MapAnonymousFlag));
        }

        Console.WriteLine($"mappings={MappingRoom.CountSelfMappings()}");
        var regions = new PrefaultRegion[maps.Count];
        for (int i = 0; i < regions.Length; i++)
        {
            regions[i] = new PrefaultRegion(maps[i].Address, maps[i].Length, $"f{i}");
        }

        PrefaultResult result = MmapPrefault.Run(regions, PrefaultOptions.Default with { RamGate = RamGate.Always });
        Console.WriteLine($"bytes={result.Bytes}");
        Console.WriteLine("done");
        return 0;
    }

    /// <summary>Locks <paramref name="count"/> one-page regions two pages apart of a mapping of <paramref name="path"/>: each lock splits the mapping.</summary>
    private static int LockSplitPages(string path, int count)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        long page = Environment.SystemPageSize;
        using NativeMmap map = NativeMmap.Map(path, 0, 2 * count * page);
        var regions = new PrefaultRegion[count];
        for (int i = 0; i < count; i++)
        {
            regions[i] = new PrefaultRegion(map.Address + (nint)(2 * i * page), page, $"r{i}");
        }

        using (LockLease lease = MmapLock.Lock(regions, LockOptions.Default with { RamGate = RamGate.Always }))
        {
            Console.WriteLine($"locked={lease.LockedBytes / page}");
            Console.WriteLine($"failures={lease.Failures.Count}");
            Console.WriteLine($"mappings={MappingRoom.CountSelfMappings()}");
            if (lease.Failures.Count > 0)
            {
                Console.WriteLine($"failure={lease.Failures[^1].Name}: {lease.Failures[^1].Message}");
            }
        }

        Console.WriteLine($"lockedAfterDispose={ProcessStatus.ReadStatusBytes("VmLck")}");
        Console.WriteLine("done");
        return 0;
    }

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
        var options = DirectReadOptions.Default with { BlockSize = 64 * 1024, MaxReadsInFlight = 4 };

        Console.WriteLine($"length={model.Length}"); // the console starts its own thread on first use: before the freeze
        File.WriteAllText(Path.Combine(group, "pids.max"), File.ReadAllText(Path.Combine(group, "pids.current")).Trim());
        Console.WriteLine($"threadStartRefused={!CanStartAThread()}");

        if (what == "start")
        {
            using PrefaultHandle handle = MmapPrefault.Start([region], PrefaultOptions.Default with { RamGate = RamGate.Always });
            PrefaultResult result = handle.Wait();
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
    private static int FirstRunMetrics(string path)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        long length = new FileInfo(path).Length;
        using NativeMmap map = NativeMmap.Map(path, 0, length);
        PrefaultRegion[] regions = [new PrefaultRegion(map.Address, length, "weights")];
        Console.WriteLine($"metricsLoadedBeforeRun={MetricsAssemblyLoaded()}");
        MmapPrefault.Run(regions);
        Console.WriteLine($"metricsLoadedAfterRun={MetricsAssemblyLoaded()}");
        ListenThenRunAgain(regions);
        Console.WriteLine("done");
        return 0;
    }

    private static bool MetricsAssemblyLoaded() =>
        AppDomain.CurrentDomain.GetAssemblies().Any(a => a.GetName().Name == "System.Diagnostics.DiagnosticSource");

    // Apart, and never inlined: compiling a method that names MeterListener loads the assembly under test.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static void ListenThenRunAgain(PrefaultRegion[] regions)
    {
        int instruments = 0;
        long runs = 0;
        using var listener = new System.Diagnostics.Metrics.MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == "Sharpi.Prefault")
            {
                instruments++;
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, _, _) =>
        {
            if (instrument.Name == "sharpi.prefault.runs")
            {
                runs += value;
            }
        });
        listener.Start();
        Console.WriteLine($"instrumentsAfterFirstRun={instruments}");
        MmapPrefault.Run(regions);
        Console.WriteLine($"runsCountedOnSecondRun={runs}");
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

/// <summary>The cases <see cref="ChildProgram"/> runs.</summary>
internal static class ChildCases
{
    public const string LockSplitPages = "lock-split-pages";
    public const string NoThreadsLeft = "no-threads-left";
    public const string StageAtMapLimit = "stage-at-map-limit";
    public const string FirstRunMetrics = "first-run-metrics";
}
