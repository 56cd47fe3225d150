namespace Sharpi.Prefault;

/// <summary>
/// The methods' names in logs, metrics and JSON (<c>none</c>, <c>populate</c>, <c>touch</c>, <c>hint</c>): the one
/// table. The tool and the bench compile this file too, so every output spells a method the same way.
/// </summary>
internal static class PrefaultMethodNames
{
    private static readonly string[] Names = ["none", "populate", "touch", "hint"];

    internal static string Of(PrefaultMethod method) => (uint)method < (uint)Names.Length ? Names[(int)method] : method.ToString();
}
