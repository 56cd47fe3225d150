namespace Sharpi.Prefault.Bench;

/// <summary>An option's comma-separated values (<c>--read-ahead-kb 128,8192</c>, <c>--prepacking off,on</c>).</summary>
internal static class CommaList
{
    /// <summary>Each value parsed (<paramref name="parse"/> throws a <see cref="BenchException"/> for a bad one), kept once, in the order given; empty for none.</summary>
    internal static T[] Parse<T>(string? value, Func<string, T> parse)
    {
        var values = new List<T>();
        foreach (string item in (value ?? string.Empty).Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            T parsed = parse(item);
            if (!values.Contains(parsed))
            {
                values.Add(parsed);
            }
        }

        return [.. values];
    }
}
