using Sharpi.Prefault.LLamaSharp;

namespace Sharpi.Prefault.Tests.PublicApi;

/// <summary>
/// The LLamaSharp companion's public surface, recorded in <c>src/Sharpi.Prefault.LLamaSharp/PublicAPI.Shipped.txt</c>
/// as the library's is in its own: a change to it is a visible diff in review.
/// </summary>
public sealed class LLamaSharpPublicApiTests
{
    [Fact]
    public void PublicApi_MatchesPublicApiShippedTxt()
    {
        string actual = PublicApiText.Of(typeof(LLamaPrefault).Assembly);
        string folder = Path.Combine(AppContext.BaseDirectory, "PublicApi", "LLamaSharp");
        string shipped = File.ReadAllText(Path.Combine(folder, "PublicAPI.Shipped.txt")).ReplaceLineEndings("\n");
        string receivedPath = Path.Combine(folder, "PublicAPI.received.txt");
        if (actual == shipped)
        {
            File.Delete(receivedPath);
            return;
        }

        File.WriteAllText(receivedPath, actual);
        Assert.Fail($"The public API of Sharpi.Prefault.LLamaSharp differs from its PublicAPI.Shipped.txt; the assembly's is in {receivedPath}. " +
            $"If the change is meant, accept it: cp \"{receivedPath}\" src/Sharpi.Prefault.LLamaSharp/PublicAPI.Shipped.txt (then rebuild).");
    }

    [Fact]
    public void PublicApi_NeverExposesTheCoresInternals_AndTheCoreNeverReferencesLLamaSharp()
    {
        Assert.DoesNotContain(typeof(MmapPrefault).Assembly.GetReferencedAssemblies(), a => a.Name!.StartsWith("LLamaSharp", StringComparison.Ordinal));
        Assert.Contains(typeof(LLamaPrefault).Assembly.GetReferencedAssemblies(), a => a.Name == "LLamaSharp");
    }
}
