namespace Sharpi.Prefault;

/// <summary>A timed block of units a candidate, laid so the least of one's read-ahead reaches the next.</summary>
internal sealed class TrialSweep : IChunkSweep
{
    private readonly ChunkSweep _chunks;
    private readonly PopulateMechanism[] _candidates;
    private readonly int[] _candidateOf;
    private readonly int[] _parentOf;
    private readonly MechanismTrial.UnitCost[] _costs;
    private readonly MergedRegion[] _units;
    private int _offset;

    private TrialSweep(ChunkSweep chunks, PopulateMechanism[] candidates, MergedRegion[] units, int[] parentOf, int[] candidateOf)
    {
        _chunks = chunks;
        _candidates = candidates;
        _units = units;
        _parentOf = parentOf;
        _candidateOf = candidateOf;
        _costs = new MechanismTrial.UnitCost[units.Length];
    }

    /// <summary>Sweeps the units and returns what they measured; failures go under the regions' own indexes; cancelled, it stops between units.</summary>
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

        // The untimed warm-up unit pays what runs once. Each block runs in two parts; a candidate clearly dearer than
        // the cheapest so far after its first part leaves the rest of its block to the winner.
        var trial = new TrialSweep(chunks, candidates, units, unitParent, candidateOf);
        FirstAccessProbe.Costs probe = FirstAccessProbe.Current;
        long[] bytes = new long[candidates.Length];
        long[] ticks = new long[candidates.Length];
        long[] pmd = new long[candidates.Length];
        int[] swept = new int[candidates.Length];
        bool[] stopped = new bool[candidates.Length];
        var skipped = new List<int>();
        double best = double.NaN;
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

            int mid = block < 0 ? end : first + MechanismTrial.FirstPart(end - first);
            long pmdBefore = block >= 0 ? FirstAccessProbe.FilePmdMappedBytes() : -1;
            for (int from = first; from < end && !cutShort; from = mid, mid = end)
            {
                trial._offset = from;
                var sweep = new StrideSweep(units[from..mid], MechanismTrial.UnitBytes, trial, regionDone: null, token, clock, bytesBefore: done);
                long started = System.Diagnostics.Stopwatch.GetTimestamp();
                used = Math.Max(used, sweep.Execute(threads.Threads, threads.Priority, progress));
                long elapsed = System.Diagnostics.Stopwatch.GetTimestamp() - started;
                cutShort = sweep.IsCutShort;
                if (block >= 0)
                {
                    long partBytes = sweep.BytesDone - done;
                    long pmdAfter = FirstAccessProbe.FilePmdMappedBytes();
                    ticks[c] += elapsed;
                    bytes[c] += partBytes;
                    pmd[c] = pmd[c] < 0 || pmdBefore < 0 || pmdAfter < 0 ? -1 : pmd[c] + Math.Clamp(pmdAfter - pmdBefore, 0, partBytes);
                    pmdBefore = pmdAfter;
                    swept[c] += cutShort ? (int)((partBytes + MechanismTrial.UnitBytes - 1) / MechanismTrial.UnitBytes) : mid - from;
                }

                done = sweep.BytesDone;
                double rate = block < 0 ? double.NaN : RateOf(c);
                if (mid < end && !cutShort && MechanismTrial.StopsEarly(rate, best))
                {
                    for (int u = mid; u < end; u++)
                    {
                        skipped.Add(u);
                    }

                    stopped[c] = true;

                    break;
                }
            }

            if (block >= 0 && !double.IsNaN(RateOf(c)) && !(RateOf(c) >= best))
            {
                best = RateOf(c);
            }

            first = end;
        }

        double[] engine = new double[candidates.Length];
        for (int c = 0; c < engine.Length; c++)
        {
            engine[c] = EngineOf(c);
        }

        double[] rates = MechanismTrial.Rates(bytes, ticks, engine);
        int chosen = MechanismTrial.Pick(rates);
        bool touchesAll = MechanismTrial.TouchesAll(trial._costs, candidateOf, chosen) && probe.KernelTouchPays;
        (rest, restParent) = WithUnits(rest, restParent, units, unitParent, skipped);
        return new TrialOutcome(chosen, rates, touchesAll, unitsEach, done, used, cutShort, rest, restParent,
            FirstTouchRatios(trial._costs, candidateOf, candidates.Length), CandidateBytes: bytes, Pmd: pmd, EngineNanoseconds: engine, Probe: probe,
            UnitsSwept: swept, Stopped: stopped);

        double EngineOf(int c) => pmd[c] < 0 ? 0 : probe.EngineNanoseconds(bytes[c], pmd[c], Environment.ProcessorCount);

        double RateOf(int c) => MechanismTrial.Rate(bytes[c], ticks[c], EngineOf(c));
    }

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

    public void ReadAhead(int region, nint start, nint end)
    {
    }

    /// <summary>Twice the read-ahead, clamped: no block's read-ahead reads the next block's pages.</summary>
    internal static long GapBytes(long readAheadBytes) => Math.Clamp(2 * readAheadBytes, 8L << 20, 32L << 20);

    /// <summary>A warm-up unit (block -1), then blocks with gaps between; units end on 2 MiB so their advice covers whole folios.</summary>
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

    /// <summary>The remainder with the units a stopped candidate left, in address order, touching pieces of one region joined.</summary>
    internal static (MergedRegion[] Remainder, int[] RemainderParent) WithUnits(MergedRegion[] rest, int[] restParent, MergedRegion[] units, int[] unitParent,
        List<int> skipped)
    {
        if (skipped.Count == 0)
        {
            return (rest, restParent);
        }

        var pieces = new List<(MergedRegion Piece, int Parent)>(rest.Length + skipped.Count);
        for (int i = 0; i < rest.Length; i++)
        {
            pieces.Add((rest[i], restParent[i]));
        }

        foreach (int u in skipped)
        {
            pieces.Add((units[u], unitParent[u]));
        }

        pieces.Sort((a, b) => a.Parent != b.Parent ? a.Parent.CompareTo(b.Parent) : ((nuint)a.Piece.Start).CompareTo((nuint)b.Piece.Start));
        var joined = new List<MergedRegion>(pieces.Count);
        var parents = new List<int>(pieces.Count);
        foreach ((MergedRegion piece, int parent) in pieces)
        {
            if (joined.Count > 0 && parents[^1] == parent && joined[^1].End == piece.Start)
            {
                joined[^1] = joined[^1] with { End = piece.End };
            }
            else
            {
                joined.Add(piece);
                parents.Add(parent);
            }
        }

        return ([.. joined], [.. parents]);
    }

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

    private static double[] FirstTouchRatios(MechanismTrial.UnitCost[] costs, int[] candidateOf, int candidates)
    {
        double[] ratios = new double[candidates];
        for (int c = 0; c < candidates; c++)
        {
            ratios[c] = MechanismTrial.FirstTouchRatio(costs, candidateOf, c);
        }

        return ratios;
    }
}

/// <summary>What a trial measured and left; rates are ns a byte, NaN where untried.</summary>
internal sealed record TrialOutcome(int Chosen, double[] Rates, bool TouchesAll, int UnitsEach, long Bytes, int Threads, bool IsCutShort,
    MergedRegion[] Rest, int[] RestParent, double[] FirstTouchRatios, long[] CandidateBytes, long[] Pmd, double[] EngineNanoseconds, FirstAccessProbe.Costs Probe,
    int[] UnitsSwept, bool[] Stopped);
