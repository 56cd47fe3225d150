using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// One fresh process's line from the host: the first and second call's wall time, the process's CPU time during the first call, the JIT's work during the first
/// call (JitInfo deltas: methods compiled and time spent), the threads the first call ran on, and whether the file was
/// fully resident before it (a sample over a file that was not is left out).
/// </summary>
internal sealed record FirstCallSample(string Host, double FirstMs, double SecondMs, double CpuMs, long JitMethods, double JitMs, int Threads, string Method,
    long ResidentBefore, double ProcessMs)
{
    /// <summary>Parses the host's <c>firstcall key=value ...</c> line; null when the output has none.</summary>
    internal static FirstCallSample? Parse(string host, string output, double processMs)
    {
        foreach (string line in output.Split('\n'))
        {
            if (!line.StartsWith("firstcall ", StringComparison.Ordinal))
            {
                continue;
            }

            var values = new Dictionary<string, string>(StringComparer.Ordinal);
            foreach (string pair in line.Split(' ', StringSplitOptions.RemoveEmptyEntries).Skip(1))
            {
                int eq = pair.IndexOf('=', StringComparison.Ordinal);
                if (eq > 0)
                {
                    values[pair[..eq]] = pair[(eq + 1)..];
                }
            }

            return new FirstCallSample(host,
                Number(values, "first_ms"), Number(values, "second_ms"), Number(values, "cpu_ms"), (long)Number(values, "jit_methods"), Number(values, "jit_ms"),
                (int)Number(values, "threads"), values.GetValueOrDefault("method", "?"), (long)Number(values, "resident_before"), processMs);
        }

        return null;
    }

    private static double Number(Dictionary<string, string> values, string key) =>
        values.TryGetValue(key, out string? text) && double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out double v)
            ? v
            : throw new BenchException($"The host's line has no number for {key}.");
}
