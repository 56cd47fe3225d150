namespace Sharpi.Prefault;

/// <summary>
/// The methods' names in logs, metrics and JSON (<c>none</c>, <c>populate</c>, <c>touch</c>, <c>hint</c>): the one
/// table.
/// </summary>
internal static class PrefaultMethodNames
{
    private static readonly string[] Names = ["none", "populate", "touch", "hint"];

    internal static string Of(PrefaultMethod method) => (uint)method < (uint)Names.Length ? Names[(int)method] : method.ToString();
}
