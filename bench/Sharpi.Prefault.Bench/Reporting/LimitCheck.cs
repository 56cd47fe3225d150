using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// Finds rows that beat the <c>limit</c> row of their cache state by more than the noise: a limit that a strategy
/// beats is not the device's limit, and every <c>x limit</c> of that table is then wrong. Cold rows are compared by
/// the rate they read from storage (bytes their bios asked for over their load time, <see cref="ResultRow.LoadSeconds"/>),
/// so a request that reads only part of the file does not count as beating the disk; warm rows by total time.
/// </summary>
internal static class LimitCheck
{
    /// <summary>Beyond this a row beating the limit is not noise.</summary>
    internal const double Noise = 0.05;

    /// <summary>Warm rows take milliseconds, where a scheduler tick on a shared machine is more than 5%: the gap must be this large too.</summary>
    internal const double WarmNoiseSeconds = 0.001;

    internal static List<string> Find(IReadOnlyList<ResultRow> rows, IReadOnlyCollection<string> limitReaders)
    {
        var bugs = new List<string>();
        foreach (ResultRow limit in rows.Where(static r => r.Strategy == ColdStartStrategy.LimitName))
        {
            string pass = limit.Pass == default ? string.Empty : ", " + limit.Pass.Describe();
            string best = limit.Method ?? "limit";
            foreach (ResultRow row in rows)
            {
                if (row.Cache != limit.Cache || row.Pass != limit.Pass || row.Strategy == ColdStartStrategy.LimitName || limitReaders.Contains(row.Strategy))
                {
                    continue;
                }

                if (limit.Cache == CacheControl.Name(CacheState.Cold))
                {
                    double limitRate = limit.StorageBytes > 0 ? limit.StorageGibPerSecond : limit.GibPerSecond;
                    double rate = row.LoadSeconds > 0 ? row.StorageBytes / (double)(1L << 30) / row.LoadSeconds : 0;
                    if (limitRate > 0 && rate > limitRate * (1 + Noise))
                    {
                        bugs.Add(string.Create(CultureInfo.InvariantCulture,
                            $"BUG: row {row.Strategy} beats limit by {(rate / limitRate - 1) * 100:0}% (cold{pass}): it read {Sizes.Format(row.StorageBytes)} from storage at {rate:0.00} GiB/s, " +
                            $"the limit ({best}) {limitRate:0.00} GiB/s. The limit is not this device's limit; its x limit figures are wrong."));
                    }
                }
                else if (row.TotalSeconds > 0 && limit.TotalSeconds > row.TotalSeconds * (1 + Noise) && limit.TotalSeconds - row.TotalSeconds > WarmNoiseSeconds)
                {
                    bugs.Add(string.Create(CultureInfo.InvariantCulture,
                        $"BUG: row {row.Strategy} beats limit by {(limit.TotalSeconds / row.TotalSeconds - 1) * 100:0}% ({row.Cache}{pass}): {ResultTable.Seconds(row.TotalSeconds)} s " +
                        $"against the limit's ({best}) {ResultTable.Seconds(limit.TotalSeconds)} s."));
                }
            }
        }

        return bugs;
    }
}
