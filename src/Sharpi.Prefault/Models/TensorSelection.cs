namespace Sharpi.Prefault;

/// <summary>
/// Which tensors to take, by glob patterns on their names: a tensor is selected when it matches any include pattern (or
/// there are none) and no exclude pattern.
/// </summary>
public sealed class TensorSelection
{
    private readonly string[] _include;
    private readonly string[] _exclude;

    /// <summary>Creates a selection from include and exclude patterns.</summary>
    /// <param name="include">Patterns a tensor must match one of; null or empty selects every tensor.</param>
    /// <param name="exclude">Patterns that drop a tensor even when included; null or empty drops none.</param>
    /// <exception cref="ArgumentException">A pattern is null or empty.</exception>
    public TensorSelection(IEnumerable<string>? include = null, IEnumerable<string>? exclude = null)
    {
        _include = Validate(include, nameof(include));
        _exclude = Validate(exclude, nameof(exclude));
    }

    /// <summary>Selects every tensor.</summary>
    public static TensorSelection All { get; } = new();

    /// <summary>The include patterns (empty: all tensors).</summary>
    public IReadOnlyList<string> Include => _include;

    /// <summary>The exclude patterns.</summary>
    public IReadOnlyList<string> Exclude => _exclude;

    // True when name is selected; throws ArgumentNullException for null.
    internal bool Matches(string name)
    {
        ArgumentNullException.ThrowIfNull(name);
        return (_include.Length == 0 || AnyMatch(_include, name)) && !AnyMatch(_exclude, name);
    }

    // True when the glob pattern matches all of name; throws ArgumentNullException for a null argument.
    internal static bool GlobMatches(string pattern, string name)
    {
        ArgumentNullException.ThrowIfNull(pattern);
        ArgumentNullException.ThrowIfNull(name);

        // Greedy match with one backtrack point (the last '*'): linear for the patterns people write, and never
        // exponential, unlike a recursive matcher or a regex built from the pattern.
        int p = 0, n = 0, starP = -1, starN = 0;
        while (n < name.Length)
        {
            if (p < pattern.Length && (pattern[p] == '?' || pattern[p] == name[n]))
            {
                p++;
                n++;
            }
            else if (p < pattern.Length && pattern[p] == '*')
            {
                starP = p++;
                starN = n;
            }
            else if (starP >= 0)
            {
                p = starP + 1;
                n = ++starN;
            }
            else
            {
                return false;
            }
        }

        while (p < pattern.Length && pattern[p] == '*')
        {
            p++;
        }

        return p == pattern.Length;
    }

    private static bool AnyMatch(string[] patterns, string name)
    {
        foreach (string pattern in patterns)
        {
            if (GlobMatches(pattern, name))
            {
                return true;
            }
        }

        return false;
    }

    private static string[] Validate(IEnumerable<string>? patterns, string paramName)
    {
        if (patterns is null)
        {
            return [];
        }

        string[] copy = [.. patterns];
        foreach (string pattern in copy)
        {
            if (string.IsNullOrEmpty(pattern))
            {
                ThrowHelper.ThrowEmptyPattern(paramName);
            }
        }

        return copy;
    }
}
