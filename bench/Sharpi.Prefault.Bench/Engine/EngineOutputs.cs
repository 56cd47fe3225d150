using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// A prefault must not change what the engine computes: every row's outputs are compared bit for bit with the first
/// output of the <c>none</c> row of the same prepacking setting (ONNX Runtime's prepacked kernels round differently,
/// so the two settings are compared only with each other's reference, and their difference is reported, not judged).
/// </summary>
internal static class EngineOutputs
{
    /// <summary>Adds an "outputs identical" note per setting; returns a BUG line per output that differs.</summary>
    internal static List<string> Compare(IReadOnlyList<EngineRun> runs, List<string> notes)
    {
        var bugs = new List<string>();
        var references = new Dictionary<string, float[]>();
        foreach (IGrouping<string?, EngineRun> setting in runs.GroupBy(static r => r.Sample.Prepacking))
        {
            EngineRun? none = setting.FirstOrDefault(static r => r.Sample.Strategy == EngineRows.None);
            if (none is null)
            {
                continue;
            }

            float[] reference = none.FirstOutput;
            int compared = 0;
            int differing = 0;
            foreach (EngineRun run in setting)
            {
                foreach ((string which, float[] output) in (ReadOnlySpan<(string, float[])>)[("first", run.FirstOutput), ("second", run.SecondOutput)])
                {
                    compared++;
                    int count = Differing(reference, output);
                    if (count > 0)
                    {
                        differing++;
                        bugs.Add($"BUG: outputs differ: {run.Sample.Strategy} (prepacking {setting.Key}{Pass(run)}): {count} of {reference.Length} values of its {which} " +
                            "inference differ bit for bit from none's first. A prefault changed what the engine computed.");
                    }
                }
            }

            notes.Add(differing == 0
                ? $"outputs identical: yes, prepacking {setting.Key}: all {compared} outputs (every row's first and second inference, every repetition) equal none's first bit for bit."
                : $"outputs identical: NO, prepacking {setting.Key}: {differing} of {compared} outputs differ from none's first (see the BUG lines).");
            references[setting.Key!] = reference;
        }

        if (references.TryGetValue("off", out float[]? off) && references.TryGetValue("on", out float[]? on))
        {
            int count = Differing(off, on);
            notes.Add(count == 0
                ? "prepacking off and on gave identical outputs."
                : string.Create(CultureInfo.InvariantCulture,
                    $"prepacking off and on differ in {count} of {off.Length} values (largest difference {MaxDifference(off, on):0.###e0}): ONNX Runtime runs other kernels on prepacked weights, so each setting is compared with its own none."));
        }

        return bugs;
    }

    private static string Pass(EngineRun run) =>
        run.Sample.ReadAheadKb is int kb ? string.Create(CultureInfo.InvariantCulture, $", read_ahead_kb {kb}") : string.Empty;

    private static int Differing(float[] reference, float[] output)
    {
        if (output.Length != reference.Length)
        {
            return Math.Max(output.Length, reference.Length);
        }

        int count = 0;
        for (int i = 0; i < reference.Length; i++)
        {
            if (BitConverter.SingleToInt32Bits(reference[i]) != BitConverter.SingleToInt32Bits(output[i]))
            {
                count++;
            }
        }

        return count;
    }

    private static double MaxDifference(float[] a, float[] b)
    {
        double max = 0;
        for (int i = 0; i < Math.Min(a.Length, b.Length); i++)
        {
            max = Math.Max(max, Math.Abs((double)a[i] - b[i]));
        }

        return max;
    }
}
