namespace Sharpi.Prefault;

/// <summary>The one table of the methods' names in logs, metrics and JSON.</summary>
internal static class PrefaultMethodNames
{
    private static readonly string[] Names = ["none", "populate", "touch", "hint"];

    internal static string Of(PrefaultMethod method) => (uint)method < (uint)Names.Length ? Names[(int)method] : method.ToString();
}
