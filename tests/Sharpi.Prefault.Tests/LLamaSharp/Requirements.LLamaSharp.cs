using System.Runtime.InteropServices;
using Sharpi.Prefault.LLamaSharp;

namespace Sharpi.Prefault.Tests.TestSupport;

public static partial class Requirements
{
    /// <summary>The real LLamaSharp and its CPU backend on Linux x64, where the backend ships its llama.cpp.</summary>
    public static string? LLamaSharp =>
        OperatingSystem.IsLinux() && RuntimeInformation.ProcessArchitecture == Architecture.X64
            ? null
            : "needs Linux x64: the tests read /proc and page residency, and run LLamaSharp.Backend.Cpu's linux-x64 llama.cpp";

    /// <summary>A CPU whose llama.cpp repacks Q4_0 weights at load (x86 with AVX2).</summary>
    public static string? LlamaCppRepacks =>
        RepackRules.AreKnown ? null : "needs a CPU whose llama.cpp repacks Q4_0 weights at load (x86 with AVX2); this one has no repack kernels";
}
