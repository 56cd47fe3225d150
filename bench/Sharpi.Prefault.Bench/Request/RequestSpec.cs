namespace Sharpi.Prefault.Bench;

/// <summary>The request's knobs as given on the command line.</summary>
/// <param name="Shape">moe, dense or pages.</param>
/// <param name="Layers">Layers of a generated file (a real model's come from its tensor table).</param>
/// <param name="Experts">Experts per layer of a generated file.</param>
/// <param name="Tokens">Tokens of the prefill; each picks <paramref name="TopK"/> experts per layer.</param>
/// <param name="TopK">Experts each token picks per layer.</param>
/// <param name="Seed">Seed of the router's random picks, so every row and repetition reads the same experts.</param>
internal sealed record RequestSpec(RequestShape Shape, int Layers, int Experts, int Tokens, int TopK, int Seed)
{
    internal static string Name(RequestShape shape) => shape switch
    {
        RequestShape.Moe => "moe",
        RequestShape.Dense => "dense",
        _ => "pages",
    };

    internal static RequestShape Parse(string text) => text.Trim().ToLowerInvariant() switch
    {
        "moe" => RequestShape.Moe,
        "dense" => RequestShape.Dense,
        "pages" => RequestShape.Pages,
        _ => throw new BenchException($"--request: unknown shape '{text}'; use moe, dense or pages."),
    };
}
