using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// One fresh process's line from the host: the first and second call's wall time, the map plus the first call
/// (<see cref="LoadMs"/>, what an engine waits for), the process's CPU time during the first call, the JIT's work
/// during the first call (JitInfo deltas: methods compiled and time spent), the threads the first call ran on, whether
/// it ran, and how much of the file was resident before it (a warm sample over a file that was not is run again).
/// </summary>
internal sealed record FirstCallSample(string Host, double FirstMs, double SecondMs, double CpuMs, long JitMethods, double JitMs, int Threads, string Method,
    long ResidentBefore, double ProcessMs)
{
    /// <summary>The mapping (<c>MemoryMappedFile.CreateFromFile</c> and a view) before the first call.</summary>
    internal double MapMs { get; init; }

    /// <summary>From the start of the mapping to the end of the first call: the fresh process's load.</summary>
    internal double LoadMs { get; init; }

    /// <summary>Whether the first call ran its sweep (false: gated, killed, or nothing to do).</summary>
    internal bool HasRun { get; init; }

    /// <summary>Parses the host's <c>firstcall key=value ...</c> line; null when the output has none.</summary>
    internal static FirstCallSample? Parse(string host, string output, double processMs)
    {
        foreach (string line in output.Split('\n'))
        {
            if (!line.StartsWith("firstcall ", StringComparison.Ordinal))
            {
                continue;
            }

            Dictionary<string, string> values = KeyValueLine.Parse(line);
            if (!values.ContainsKey("load_ms"))
            {
                throw new BenchException($"The {host} host prints no load_ms: it was published by an older bench. Publish it again (leave out --reuse-hosts).");
            }

            return new FirstCallSample(host,
                KeyValueLine.Number(values, "first_ms"), KeyValueLine.Number(values, "second_ms"), KeyValueLine.Number(values, "cpu_ms"),
                (long)KeyValueLine.Number(values, "jit_methods"), KeyValueLine.Number(values, "jit_ms"), (int)KeyValueLine.Number(values, "threads"),
                values.GetValueOrDefault("method", "?"), (long)KeyValueLine.Number(values, "resident_before"), processMs)
            {
                MapMs = KeyValueLine.Number(values, "map_ms"),
                LoadMs = KeyValueLine.Number(values, "load_ms"),
                HasRun = values.GetValueOrDefault("has_run") == "True",
            };
        }

        return null;
    }
}

/// <summary>A fresh process's result line: a tag, then <c>key=value</c> pairs separated by spaces.</summary>
internal static class KeyValueLine
{
    /// <param name="line">The line, its tag first.</param>
    /// <param name="lastKey">A key whose value may hold spaces: it comes last and runs to the end of the line.</param>
    internal static Dictionary<string, string> Parse(string line, string? lastKey = null)
    {
        var values = new Dictionary<string, string>(StringComparer.Ordinal);
        string head = line;
        if (lastKey is not null && line.IndexOf($" {lastKey}=", StringComparison.Ordinal) is int at and >= 0)
        {
            values[lastKey] = line[(at + lastKey.Length + 2)..].Trim();
            head = line[..at];
        }

        foreach (string pair in head.Split(' ', StringSplitOptions.RemoveEmptyEntries).Skip(1))
        {
            int eq = pair.IndexOf('=', StringComparison.Ordinal);
            if (eq > 0)
            {
                values[pair[..eq]] = pair[(eq + 1)..];
            }
        }

        return values;
    }

    internal static double Number(Dictionary<string, string> values, string key) =>
        values.TryGetValue(key, out string? text) && double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out double v)
            ? v
            : throw new BenchException($"The fresh process's line has no number for {key}.");
}
