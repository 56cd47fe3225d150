using System.Runtime.InteropServices;
using Sharpi.Prefault.LLamaSharp;

namespace Sharpi.Prefault.Tests.LLamaSharp;

/// <summary>
/// A fact over the real LLamaSharp and its CPU backend (restored from NuGet), on Linux x64, where the backend ships
/// its llama.cpp. <see cref="NeedsRepack"/>: also a CPU whose llama.cpp repacks Q4_0 weights (x86 with AVX2); shown as
/// skipped, with the reason, elsewhere.
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class LLamaSharpFactAttribute : FactAttribute
{
    private bool _needsRepack;

    public LLamaSharpFactAttribute()
    {
        if (!OperatingSystem.IsLinux() || RuntimeInformation.ProcessArchitecture != Architecture.X64)
        {
            Skip = "needs Linux x64: the tests read /proc and page residency, and run LLamaSharp.Backend.Cpu's linux-x64 llama.cpp";
        }
    }

    public bool NeedsRepack
    {
        get => _needsRepack;
        set
        {
            _needsRepack = value;
            if (value && Skip is null && !RepackRules.AreKnown)
            {
                Skip = "needs a CPU whose llama.cpp repacks Q4_0 weights at load (x86 with AVX2); this one has no repack kernels";
            }
        }
    }
}

/// <summary>A theory over the real LLamaSharp whose CPU repacks (see <see cref="LLamaSharpFactAttribute"/>).</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class LLamaSharpRepackTheoryAttribute : TheoryAttribute
{
    public LLamaSharpRepackTheoryAttribute()
    {
        if (!OperatingSystem.IsLinux() || RuntimeInformation.ProcessArchitecture != Architecture.X64)
        {
            Skip = "needs Linux x64: the tests run LLamaSharp.Backend.Cpu's linux-x64 llama.cpp";
        }
        else if (!RepackRules.AreKnown)
        {
            Skip = "needs a CPU whose llama.cpp repacks Q4_0 weights at load (x86 with AVX2); this one has no repack kernels";
        }
    }
}

/// <summary>
/// The LLamaSharp tests run one at a time: llama.cpp has one log callback per process, which some of them replace.
/// </summary>
[CollectionDefinition(Name)]
public sealed class LlamaCppLogCallback
{
    public const string Name = "llama.cpp log callback";
}
