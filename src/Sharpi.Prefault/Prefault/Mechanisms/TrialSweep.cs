namespace Sharpi.Prefault;

/// <summary>
/// The trial at the start of a run: the first units of the set (in the regions' order), a block of them per candidate,
/// each block swept on the entry point's threads with its candidate and timed, so the rest of the set is swept with
/// the cheapest (<see cref="MechanismTrial"/>). The blocks lie in the order that lets the least of one candidate's read-ahead
/// reach another's: huge pages (a folio beyond), then windows (nothing beyond, so the next block starts cold), then
/// the device's own read-ahead (a window around each fault, into the rest of the set).
/// </summary>
internal sealed class TrialSweep : IChunkSweep
{
    private readonly ChunkSweep _chunks;
    private readonly PopulateMechanism[] _candidates;
    private readonly int[] _candidateOf;
    private readonly int[] _parentOf;
    private readonly MechanismTrial.UnitCost[] _costs;
    private readonly MergedRegion[] _units;
    private int _offset; // the unit index of the block being swept: the sweep numbers its units from 0

    private TrialSweep(ChunkSweep chunks, PopulateMechanism[] candidates, MergedRegion[] units, int[] parentOf, int[] candidateOf)
    {
        _chunks = chunks;
        _candidates = candidates;
        _units = units;
        _parentOf = parentOf;
        _candidateOf = candidateOf;
        _costs = new MechanismTrial.UnitCost[units.Length];
    }

    /// <summary>
    /// Sweeps <paramref name="unitsEach"/> units a candidate from the front of <paramref name="regions"/> on the entry
    /// point's threads and returns what they measured and what is left of the regions for the rest of the sweep.
    /// Failures go to <paramref name="chunks"/> under the regions' own indexes. Cancelled, it stops between units.
    /// </summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    internal static TrialOutcome Run(MergedRegion[] regions, PopulateMechanism[] candidates, int unitsEach, long readAheadBytes, ChunkSweep chunks,
        SweepThreads threads, ProgressReporter? progress, TimeProvider clock, CancellationToken token)
    {
        int[] order = SpillOrder(candidates);
        (MergedRegion[] units, int[] unitParent, int[] blockOf, MergedRegion[] rest, int[] restParent) =
            Carve(regions, order.Length, unitsEach, GapBytes(readAheadBytes));
        int[] candidateOf = new int[units.Length];
        for (int u = 0; u < units.Length; u++)
        {
            candidateOf[u] = order[Math.Max(0, blockOf[u])];
        }

        // The warm-up unit first, untimed (it pays what runs once: compiling the sweep, its first page tables), then
        // one candidate's block at a time on all the threads: the block's time is what the candidate costs a byte
        // with the sweep's parallelism, its read-ahead and its first access included.
        var trial = new TrialSweep(chunks, candidates, units, unitParent, candidateOf);
        long[] bytes = new long[candidates.Length];
        long[] ticks = new long[candidates.Length];
        long[] pmd = new long[candidates.Length];
        long done = 0;
        int used = 0;
        bool cutShort = false;
        for (int first = 0; first < units.Length && !cutShort;)
        {
            int block = blockOf[first];
            int c = candidateOf[first];
            int end = first;
            while (end < units.Length && blockOf[end] == block)
            {
                end++;
            }

            trial._offset = first;
            long pmdBefore = FirstAccessProbe.FilePmdMappedBytes();
            var sweep = new StrideSweep(units[first..end], MechanismTrial.UnitBytes, trial, regionDone: null, token, clock, bytesBefore: done);
            long started = System.Diagnostics.Stopwatch.GetTimestamp();
            used = Math.Max(used, sweep.Execute(threads.Threads, threads.Priority, progress));
            long elapsed = System.Diagnostics.Stopwatch.GetTimestamp() - started;
            if (block >= 0)
            {
                ticks[c] = elapsed;
                bytes[c] = sweep.BytesDone - done;
                long pmdAfter = FirstAccessProbe.FilePmdMappedBytes();
                pmd[c] = pmdBefore < 0 || pmdAfter < 0 ? -1 : Math.Clamp(pmdAfter - pmdBefore, 0, bytes[c]);
            }

            done = sweep.BytesDone;
            cutShort = sweep.IsCutShort;
            first = end;
        }

        // What the engine's first access would add to each block: nothing where the sweep touches it through the
        // kernel on a machine where that pays it, else its share of 4 KiB and 2 MiB mappings at the probe's cost.
        FirstAccessProbe.Costs probe = FirstAccessProbe.Current;
        double[] engine = new double[candidates.Length];
        for (int c = 0; c < engine.Length; c++)
        {
            engine[c] = pmd[c] < 0 ? 0 : probe.EngineNanoseconds(bytes[c], pmd[c], Environment.ProcessorCount);
        }

        double[] rates = MechanismTrial.Rates(bytes, ticks, engine);
        int chosen = MechanismTrial.Pick(rates);
        // A touch through the kernel pays the engine's first access only where the probe saw it do so on this machine.
        bool touchesAll = MechanismTrial.TouchesAll(trial._costs, candidateOf, chosen) && probe.KernelTouchPays;
        return new TrialOutcome(chosen, rates, touchesAll, unitsEach, done, used, cutShort, rest, restParent,
            FirstTouchRatios(trial._costs, candidateOf, candidates.Length), CandidateBytes: bytes, Pmd: pmd, EngineNanoseconds: engine, Probe: probe);
    }

    /// <summary>Sweeps unit <paramref name="region"/> with its candidate and keeps its cost.</summary>
    public long SweepChunk(int region, nint start, nint end, bool readAhead)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 0;
        }

        int unit = _offset + region;
        MechanismTrial.UnitCost cost = _chunks.SweepTrialUnit(_candidates[_candidateOf[unit]], _parentOf[unit], start, end);
        _costs[unit] = cost;
        return cost.Bytes;
    }

    /// <summary>Units read nothing ahead of their sweep.</summary>
    public void ReadAhead(int region, nint start, nint end)
    {
    }

    /// <summary>
    /// The bytes left between two candidates' blocks, for the rest of the sweep: twice the device's read-ahead (a fault's
    /// read-around and the asynchronous window after it), at least 8 MiB and at most 32 MiB, so no block's read-ahead
    /// reads the next block's pages for it.
    /// </summary>
    internal static long GapBytes(long readAheadBytes) => Math.Clamp(2 * readAheadBytes, 8L << 20, 32L << 20);

    /// <summary>
    /// Cuts from the front of <paramref name="regions"/> one warm-up unit (block -1), then <paramref name="blocks"/>
    /// blocks of <paramref name="unitsEach"/> units with <paramref name="gapBytes"/> left between two blocks, each unit
    /// ending on a <see cref="MechanismTrial.UnitBytes"/> boundary of address (so a unit's huge-page advice covers whole
    /// folios); and what is left (the gaps, then the rest), each piece with the index of the region it came from.
    /// </summary>
    internal static (MergedRegion[] Units, int[] UnitParent, int[] BlockOf, MergedRegion[] Remainder, int[] RemainderParent) Carve(
        MergedRegion[] regions, int blocks, int unitsEach, long gapBytes)
    {
        var units = new List<MergedRegion>();
        var unitParent = new List<int>();
        var blockOf = new List<int>();
        var rest = new List<MergedRegion>();
        var restParent = new List<int>();
        int block = -1, inBlock = 0;
        long gapLeft = 0;
        for (int i = 0; i < regions.Length; i++)
        {
            MergedRegion r = regions[i];
            nint at = r.Start;
            while (block < blocks && (nuint)at < (nuint)r.End)
            {
                if (gapLeft > 0)
                {
                    nint gapEnd = (nuint)(r.End - at) > (nuint)gapLeft ? at + (nint)gapLeft : r.End;
                    rest.Add(r with { Start = at, End = gapEnd });
                    restParent.Add(i);
                    gapLeft -= gapEnd - at;
                    at = gapEnd;
                    continue;
                }

                nint end = (nint)((at & ~(MechanismTrial.UnitBytes - 1)) + MechanismTrial.UnitBytes);
                end = (nuint)end < (nuint)r.End ? end : r.End;
                units.Add(r with { Start = at, End = end });
                unitParent.Add(i);
                blockOf.Add(block);
                at = end;
                if (block < 0 || ++inBlock == unitsEach)
                {
                    block++;
                    inBlock = 0;
                    gapLeft = block > 0 && block < blocks ? gapBytes : 0;
                }
            }

            if ((nuint)at < (nuint)r.End)
            {
                rest.Add(r with { Start = at });
                restParent.Add(i);
            }
        }

        return ([.. units], [.. unitParent], [.. blockOf], [.. rest], [.. restParent]);
    }

    /// <summary>The candidates' indexes in the order their units lie: huge pages, windows, then the device's read-ahead.</summary>
    private static int[] SpillOrder(PopulateMechanism[] candidates)
    {
        int[] order = new int[candidates.Length];
        for (int c = 0; c < order.Length; c++)
        {
            order[c] = c;
        }

        Array.Sort(order, (a, b) => Rank(candidates[a]).CompareTo(Rank(candidates[b])));
        return order;

        static int Rank(PopulateMechanism m) => m.Staging.Policy switch
        {
            FolioPolicy.HugePages => 0,
            FolioPolicy.Windows => 1,
            _ => 2,
        };
    }

    /// <summary>Each candidate's first access over its second, NaN where it had no unit.</summary>
    private static double[] FirstTouchRatios(MechanismTrial.UnitCost[] costs, int[] candidateOf, int candidates)
    {
        double[] ratios = new double[candidates];
        for (int c = 0; c < candidates; c++)
        {
            long first = 0, second = 0;
            for (int u = 0; u < costs.Length; u++)
            {
                if (candidateOf[u] == c)
                {
                    first += costs[u].FirstTouchTicks;
                    second += costs[u].SecondTouchTicks;
                }
            }

            ratios[c] = second == 0 ? double.NaN : (double)first / second;
        }

        return ratios;
    }
}

/// <summary>
/// What a run's trial measured and left: the candidate chosen, each candidate's cost (ns a byte, NaN: untried) and
/// first access over its second, whether the rest is touched after its populate, the units each, the bytes and threads
/// it swept, whether cancellation cut it short, and the regions' pieces left for the rest of the sweep (with the index
/// of the region each came from).
/// </summary>
internal sealed record TrialOutcome(int Chosen, double[] Rates, bool TouchesAll, int UnitsEach, long Bytes, int Threads, bool IsCutShort,
    MergedRegion[] Rest, int[] RestParent, double[] FirstTouchRatios, long[] CandidateBytes, long[] Pmd, double[] EngineNanoseconds, FirstAccessProbe.Costs Probe);
