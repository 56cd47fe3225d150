namespace Sharpi.Prefault.Bench;

internal static class Statistics
{
    internal static double Median(IEnumerable<double> values)
    {
        double[] sorted = [.. values];
        if (sorted.Length == 0)
        {
            return double.NaN;
        }

        Array.Sort(sorted);
        int mid = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    internal static long Median(IEnumerable<long> values) => (long)Math.Round(Median(values.Select(static v => (double)v)));
}
