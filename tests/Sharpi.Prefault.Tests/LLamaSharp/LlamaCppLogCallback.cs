namespace Sharpi.Prefault.Tests.LLamaSharp;

/// <summary>
/// The LLamaSharp tests run one at a time: llama.cpp has one log callback per process, which some of them replace.
/// </summary>
[CollectionDefinition(Name)]
public sealed class LlamaCppLogCallback
{
    public const string Name = "llama.cpp log callback";
}
