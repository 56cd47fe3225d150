using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>The <c>firstcall</c> tables: per pass, the warm samples per host, the cold ones per host and C reader, and the goal line.</summary>
internal static class FirstCallReport
{
    internal static void Print(WeightsFile file, bool byPrefault, int samples, string[] kinds, List<FirstCallPass> passes, List<string> notes,
        string conditions, string loadBefore)
    {
        bool cold = passes.Any(static p => p.Cold.Count > 0);
        Console.Out.WriteLine();
        Console.Out.WriteLine($"First call of MmapPrefault.Run in a fresh process: {file.Path} ({Sizes.Format(file.Length)}), " +
            $"{samples} fresh processes per host{(cold ? " (and C reader)" : string.Empty)} and cache state, interleaved; " +
            $"{Environment.ProcessorCount} CPUs, load average {loadBefore} before, {LoadAverage()} after.");
        foreach (string note in notes)
        {
            Console.Out.WriteLine("  " + note);
        }

        foreach (FirstCallPass pass in passes)
        {
            string heading = (pass.Device is { } device ? device + (pass.ReadAheadKb is null ? ": " : ", ") : string.Empty) +
                (pass.ReadAheadKb is int kb ? $"read_ahead_kb {kb}: " : string.Empty);
            if (pass.Warm.Count > 0)
            {
                Console.Out.WriteLine();
                Console.Out.WriteLine($"{heading}warm, " + (byPrefault ? "read in by MmapPrefault.Run after an eviction" : "read(2) through the page cache") +
                    " (the fixed cost):");
                if (pass.Rewarmed > 0)
                {
                    Console.Out.WriteLine($"  {pass.Rewarmed} sample(s) found the file no longer resident (evicted by other work): warmed again and run again.");
                }

                PrintWarm(kinds, pass.Warm);
            }

            if (pass.Cold.Count > 0)
            {
                Console.Out.WriteLine();
                Console.Out.WriteLine($"{heading}cold, evicted before each sample{(conditions.Length > 0 ? ", " + conditions : string.Empty)}:");
                PrintCold(pass);
            }
        }

        Console.Out.WriteLine();
        foreach (string kind in kinds)
        {
            Console.Out.WriteLine($"  {kind}: {FirstCallHosts.Describe(kind)}");
        }

        foreach (string mode in CReaders.All.Where(m => passes.Any(p => p.Cold.ContainsKey(CReaders.RowName(m)))))
        {
            Console.Out.WriteLine($"  {CReaders.RowName(mode)}: {CReaders.Describe(mode)}");
        }

        Console.Out.WriteLine("  load ms: from the start of the host's mapping to the end of its first MmapPrefault.Run (a C reader: open to last byte); " +
            "first call: Stopwatch around the process's first MmapPrefault.Run; second: the next one in the same process; " +
            "CPU ms: the process's CPU time (every thread, user and kernel) during the first call (a C reader: its whole load), steadier than wall time on a busy machine; " +
            "JIT methods/ms: System.Runtime.JitInfo deltas around the first call (0 under NativeAOT); process ms: start to exit; " +
            $"x best C: the pass's fastest C reader's median load over the row's (goal: >= {FirstCallCommand.Goal:0.00}x); " +
            "like for like (where the fastest reader is c-direct, which fills no page cache): the same against the fastest C reader that leaves the file cached and mapped; " +
            "medians (min-max) over the samples.");
    }

    private static void PrintWarm(string[] kinds, Dictionary<string, List<FirstCallSample>> warm)
    {
        Console.Out.WriteLine($"{"host",-8} {"load ms",-22} {"first call ms",-22} {"second ms",-20} {"CPU ms",-22} {"JIT methods",11} {"JIT ms",8} {"threads",7} {"method",-9} {"process ms",10}");
        foreach (string kind in kinds)
        {
            List<FirstCallSample> s = warm[kind];
            Console.Out.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"{kind,-8} {Spread(s.Select(x => x.LoadMs)),-22} {Spread(s.Select(x => x.FirstMs)),-22} {Spread(s.Select(x => x.SecondMs)),-20} {Spread(s.Select(x => x.CpuMs)),-22} " +
                $"{Statistics.Median(s.Select(x => x.JitMethods)),11} {Statistics.Median(s.Select(x => x.JitMs)),8:0.0} {Statistics.Median(s.Select(x => (long)x.Threads)),7} " +
                $"{s[0].Method,-9} {Statistics.Median(s.Select(x => x.ProcessMs)),10:0}"));
        }
    }

    private static void PrintCold(FirstCallPass pass)
    {
        // The best C reader by median load: what every row of the pass is held to.
        (string Row, double Ms)? best = BestReader(pass, static _ => true);
        int width = Math.Max(8, pass.Cold.Keys.Max(static k => k.Length));
        Console.Out.WriteLine($"{"row".PadRight(width)} {"load ms",-24} {"x best C",8} {"warm load ms",12} {"first call ms",-22} {"CPU ms",-22} {"JIT methods",11} {"process ms",10}  method");
        foreach ((string row, List<FreshSample> s) in pass.Cold)
        {
            double load = Statistics.Median(s.Select(static x => x.LoadMs));
            string ratio = best is { } b && load > 0 ? ResultTable.Ratio(b.Ms / load) : "-";
            bool host = s[0].Host is not null;
            string warmLoad = host && pass.Warm.TryGetValue(row, out List<FirstCallSample>? w) && w.Count > 0
                ? Statistics.Median(w.Select(static x => x.LoadMs)).ToString("0.00", CultureInfo.InvariantCulture)
                : "-";
            string first = host ? Spread(s.Select(static x => x.Host!.FirstMs)) : "-";
            string jit = host ? Statistics.Median(s.Select(static x => x.Host!.JitMethods)).ToString(CultureInfo.InvariantCulture) : "-";
            Console.Out.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"{row.PadRight(width)} {Spread(s.Select(static x => x.LoadMs)),-24} {ratio,8} {warmLoad,12} {first,-22} {Spread(s.Select(static x => x.CpuMs)),-22} {jit,11} " +
                $"{Statistics.Median(s.Select(static x => x.ProcessMs)),10:0}  {s[^1].Method}"));
        }

        double[] waits = [.. pass.Cold.Values.SelectMany(static s => s).Where(static s => s.SettleSeconds is not null).Select(static s => s.SettleSeconds!.Value)];
        if (waits.Length > 0)
        {
            Console.Out.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"  settled before each sample: {ResultTable.Seconds(waits.Min())}-{ResultTable.Seconds(waits.Max())} s, median {ResultTable.Seconds(Statistics.Median(waits))} s (not in any column)."));
        }

        if (best is not { } bestReader)
        {
            Console.Out.WriteLine("  goal: not checked, no C reader ran (see the notes).");
            return;
        }

        Console.Out.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"  goal, cold load in a fresh process >= {FirstCallCommand.Goal:0.00}x the best C reader ({Against(pass, bestReader, verdict: true)}."));

        // Like for like: a host leaves the file in the page cache and mapped, which O_DIRECT (c-direct) does not: it
        // skips the page cache's fill that every mapping reader pays. Ratios only, beside the goal, never instead of it:
        // the goal is defined against the best C reader.
        if (BestReader(pass, static s => s.LeavesFileMapped) is { } mapped && mapped.Row != bestReader.Row)
        {
            Console.Out.WriteLine($"  like for like, against the best C reader that leaves the file cached and mapped as the hosts do ({Against(pass, mapped, verdict: false)}.");
        }
    }

    /// <summary>The C reader with the lowest median load among those <paramref name="include"/> takes; null where none ran.</summary>
    private static (string Row, double Ms)? BestReader(FirstCallPass pass, Func<FreshSample, bool> include) => pass.Cold
        .Where(r => r.Value.Count > 0 && r.Value[0].Host is null && include(r.Value[0]))
        .Select(static r => (r.Key, Statistics.Median(r.Value.Select(static s => s.LoadMs))))
        .OrderBy(static r => r.Item2)
        .Cast<(string, double)?>()
        .FirstOrDefault();

    /// <summary>
    /// "c-direct, median 215.2 ms): jit 0.79x (per round 0.67x-0.92x, not met), ...": every host's median load against
    /// <paramref name="reference"/>'s, and per round (the rows of one round ran within seconds of each other, so the
    /// spread of their ratio is the drift's); with <paramref name="verdict"/>, whether each meets the goal.
    /// </summary>
    private static string Against(FirstCallPass pass, (string Row, double Ms) reference, bool verdict)
    {
        List<FreshSample> samples = pass.Cold[reference.Row];
        IEnumerable<string> ratios = pass.Cold.Where(static r => r.Value[0].Host is not null).Select(r =>
        {
            double ratio = reference.Ms / Statistics.Median(r.Value.Select(static x => x.LoadMs));
            double[] rounds = [.. r.Value.Zip(samples, static (host, c) => c.LoadMs / host.LoadMs)];
            return $"{r.Key} {ResultTable.Ratio(ratio)} (per round {ResultTable.Ratio(rounds.Min())}-{ResultTable.Ratio(rounds.Max())}" +
                (verdict ? $", {(ratio >= FirstCallCommand.Goal ? "met" : "not met")})" : ")");
        });
        return string.Create(CultureInfo.InvariantCulture, $"{reference.Row}, median {reference.Ms:0.0} ms): {string.Join(", ", ratios)}");
    }

    private static string Spread(IEnumerable<double> values)
    {
        double[] v = [.. values];
        return string.Create(CultureInfo.InvariantCulture, $"{Statistics.Median(v):0.00} ({v.Min():0.00}-{v.Max():0.00})");
    }

    internal static string LoadAverage()
    {
        try
        {
            return string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3));
        }
        catch (IOException)
        {
            return "unknown";
        }
    }
}
