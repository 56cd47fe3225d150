using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The DAMON schemes this machine runs (mm/damon, its sysfs interface under <see cref="Root"/>, and the
/// <c>damon_reclaim</c> module's parameters): a scheme whose action is <c>pageout</c> takes page cache that sat idle
/// for its minimum age out of memory behind the engine's back, so a file the bench (or a user) made warm does not stay
/// warm. Read for the report's host line only; the files are root's, and where they cannot be read the line says so.
/// </summary>
internal static class DamonSchemes
{
    /// <summary>The kdamond directories: <c>N/state</c>, <c>N/contexts/C/{operations,monitoring_attrs,schemes}</c>.</summary>
    internal const string Root = "/sys/kernel/mm/damon/admin/kdamonds";

    /// <summary>The DAMON_RECLAIM module's parameters (<c>enabled</c>, <c>min_age</c> in microseconds).</summary>
    internal const string ReclaimModule = "/sys/module/damon_reclaim/parameters";

    /// <summary>One scheme of one context of one kdamond, as its files say.</summary>
    /// <param name="MinAgeIntervals">access_pattern/age/min: aggregation intervals a region must have stayed as it is.</param>
    /// <param name="AggregationMicroseconds">The context's aggregation interval (monitoring_attrs/intervals/aggr_us).</param>
    /// <param name="QuotaBytes">quotas/bytes per <paramref name="QuotaResetMilliseconds"/>; 0: no size quota.</param>
    /// <param name="Filters">"anon excluded", "unmapped only": each filter, in order.</param>
    internal sealed record Scheme(string Kdamond, string State, string Operations, string Action, long? MinAgeIntervals,
        long? AggregationMicroseconds, long? QuotaBytes, long? QuotaResetMilliseconds, IReadOnlyList<string> Filters)
    {
        /// <summary>The minimum age in seconds at the context's current aggregation interval, where both are known.</summary>
        internal double? MinAgeSeconds => MinAgeIntervals is long n && AggregationMicroseconds is long us ? n * us / 1e6 : null;

        /// <summary>"kdamond 0 on: pageout (paddr) of memory idle >= 60 s (12 x 5 s), anon excluded, unmapped only, at most 128 MiB per 1 s".</summary>
        internal string Describe()
        {
            var text = new System.Text.StringBuilder($"kdamond {Kdamond} {State}: {Action} ({Operations})");
            if (MinAgeSeconds is double seconds)
            {
                text.Append(CultureInfo.InvariantCulture, $" of memory idle >= {seconds:0.#} s ({MinAgeIntervals} x {AggregationMicroseconds / 1e6:0.###} s)");
            }
            else if (MinAgeIntervals is long intervals)
            {
                text.Append(CultureInfo.InvariantCulture, $" of memory idle >= {intervals} aggregation intervals");
            }

            foreach (string filter in Filters)
            {
                text.Append(", ").Append(filter);
            }

            if (QuotaBytes is > 0 and long bytes && QuotaResetMilliseconds is > 0 and long ms)
            {
                text.Append(CultureInfo.InvariantCulture, $", at most {Sizes.Format(bytes)} per {(ms % 1000 == 0 ? $"{ms / 1000} s" : $"{ms} ms")}");
            }

            return text.ToString();
        }
    }

    /// <summary>
    /// Every scheme under <paramref name="root"/> (<see cref="Root"/>); empty where DAMON has no kdamond or no scheme.
    /// Throws <see cref="UnauthorizedAccessException"/> or <see cref="IOException"/> where the files cannot be read.
    /// </summary>
    internal static List<Scheme> Read(string root = Root)
    {
        var schemes = new List<Scheme>();
        if (!Directory.Exists(root))
        {
            return schemes;
        }

        foreach (string kdamond in Numbered(root))
        {
            string state = Text(Path.Combine(kdamond, "state")) ?? "?";
            foreach (string context in Numbered(Path.Combine(kdamond, "contexts")))
            {
                string operations = Text(Path.Combine(context, "operations")) ?? "?";
                long? aggregation = Number(Path.Combine(context, "monitoring_attrs", "intervals", "aggr_us"));
                foreach (string scheme in Numbered(Path.Combine(context, "schemes")))
                {
                    schemes.Add(new Scheme(
                        Path.GetFileName(kdamond),
                        state,
                        operations,
                        Text(Path.Combine(scheme, "action")) ?? "?",
                        Number(Path.Combine(scheme, "access_pattern", "age", "min")),
                        aggregation,
                        Number(Path.Combine(scheme, "quotas", "bytes")),
                        Number(Path.Combine(scheme, "quotas", "reset_interval_ms")),
                        Filters(scheme)));
                }
            }
        }

        return schemes;
    }

    /// <summary>
    /// One line for the host line: the schemes (and the DAMON_RECLAIM module where it is enabled), "none" where DAMON
    /// runs no scheme, or why they could not be read; null where this kernel has no DAMON sysfs interface or module.
    /// </summary>
    internal static string? Describe(string root = Root, string reclaimModule = ReclaimModule)
    {
        var parts = new List<string>();
        bool found = Directory.Exists(root);
        try
        {
            parts.AddRange(Read(root).Select(static s => s.Describe()));
        }
        catch (Exception e) when (e is UnauthorizedAccessException or IOException)
        {
            parts.Add($"its schemes could not be read ({e.Message}; root can)");
        }

        if (Directory.Exists(reclaimModule))
        {
            found = true;
            if (Text(Path.Combine(reclaimModule, "enabled")) is "Y" or "1")
            {
                long? minAge = Number(Path.Combine(reclaimModule, "min_age"));
                parts.Add("damon_reclaim module enabled" +
                    (minAge is long us ? string.Create(CultureInfo.InvariantCulture, $": pageout of memory idle >= {us / 1e6:0.#} s") : string.Empty));
            }
        }

        return !found ? null : parts.Count == 0 ? "none" : string.Join("; ", parts);
    }

    /// <summary>"anon excluded", "unmapped only": filters/, and since Linux 6.15 core_filters/ and ops_filters/.</summary>
    private static List<string> Filters(string scheme)
    {
        var filters = new List<string>();
        foreach (string kind in (string[])["core_filters", "ops_filters", "filters"])
        {
            foreach (string filter in Numbered(Path.Combine(scheme, kind)))
            {
                string type = Text(Path.Combine(filter, "type")) ?? "?";
                bool matching = Text(Path.Combine(filter, "matching")) is not ("N" or "0");
                // Before the allow file (Linux 6.14) every filter excluded what it matched.
                bool allow = Text(Path.Combine(filter, "allow")) is "Y" or "1";
                string what = matching ? type : "not " + type;
                filters.Add(allow ? $"{what} only" : $"{what} excluded");
            }
        }

        return filters;
    }

    /// <summary>The numbered subdirectories of <paramref name="directory"/> (0, 1, ...), in order; none where it does not exist.</summary>
    private static IEnumerable<string> Numbered(string directory)
    {
        if (!Directory.Exists(directory))
        {
            return [];
        }

        return Directory.EnumerateDirectories(directory)
            .Select(static d => (Path: d, Index: int.TryParse(Path.GetFileName(d), NumberStyles.None, CultureInfo.InvariantCulture, out int i) ? i : -1))
            .Where(static d => d.Index >= 0)
            .OrderBy(static d => d.Index)
            .Select(static d => d.Path);
    }

    private static string? Text(string path) => File.Exists(path) ? File.ReadAllText(path).Trim() : null;

    private static long? Number(string path) =>
        Text(path) is { } text && long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out long value) ? value : null;
}
