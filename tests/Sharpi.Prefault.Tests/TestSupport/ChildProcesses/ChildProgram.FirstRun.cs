using System.Globalization;
using Sharpi.Prefault.Tests.Mappings;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>The child cases about what a fresh process's first call costs (header parse peak, first-run metrics).</summary>
internal static partial class ChildProgram
{
    /// <summary>
    /// Reads <paramref name="warmUp"/> (so the parse's code is compiled), resets the peak RSS (clear_refs 5), reads
    /// <paramref name="path"/>, and prints the peak's growth over the RSS before the parse.
    /// </summary>
    private static int HeaderParsePeak(string path, string warmUp)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        TensorIndex.Read(warmUp);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        File.WriteAllText("/proc/self/clear_refs", "5");
        long before = StatusBytes("VmRSS:");
        TensorIndex index = TensorIndex.Read(path);
        long peak = StatusBytes("VmHWM:");
        Console.WriteLine($"tensors={index.Tensors.Count}");
        Console.WriteLine($"growth={peak - before}");
        Console.WriteLine("done");
        GC.KeepAlive(index);
        return 0;

        static long StatusBytes(string field)
        {
            foreach (string line in File.ReadLines("/proc/self/status"))
            {
                if (line.StartsWith(field, StringComparison.Ordinal))
                {
                    return long.Parse(line[field.Length..].Trim().Split(' ')[0], CultureInfo.InvariantCulture) * 1024;
                }
            }

            return -1;
        }
    }

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
}
