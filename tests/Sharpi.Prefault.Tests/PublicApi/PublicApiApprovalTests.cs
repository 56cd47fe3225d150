using System.Reflection;

namespace Sharpi.Prefault.Tests.PublicApi;

/// <summary>
/// The library's public surface, recorded in <c>src/Sharpi.Prefault/PublicAPI.Shipped.txt</c>, so that a change to it
/// is a visible diff in review (Polly does the same with the PublicApiAnalyzers, which the served registry lacks).
/// </summary>
public sealed class PublicApiApprovalTests
{
    private const string ShippedName = "PublicAPI.Shipped.txt";
    private const string ReceivedName = "PublicAPI.received.txt";

    [Fact]
    public void PublicApi_MatchesPublicApiShippedTxt()
    {
        string actual = PublicApiText.Of(typeof(MmapPrefault).Assembly);
        string shipped = File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "PublicApi", ShippedName)).ReplaceLineEndings("\n");
        string shippedPath = ShippedPathInTheSourceTree();
        // Beside the test's copy of the shipped file, in the output folder: a test run never writes into src/.
        string receivedPath = Path.Combine(AppContext.BaseDirectory, "PublicApi", ReceivedName);
        if (actual == shipped)
        {
            File.Delete(receivedPath);
            return;
        }

        File.WriteAllText(receivedPath, actual);
        Assert.Fail(
            $"The public API of Sharpi.Prefault differs from {ShippedName}; the assembly's is in {receivedPath}.{Environment.NewLine}" +
            FirstDifferences(shipped, actual) +
            $"If the change is meant, accept it: cp \"{receivedPath}\" \"{shippedPath}\" (then rebuild, so the test's copy is fresh).");
    }

    [Fact]
    public void PublicApiText_IsTheSameOnEveryCall()
    {
        Assert.Equal(PublicApiText.Of(typeof(MmapPrefault).Assembly), PublicApiText.Of(typeof(MmapPrefault).Assembly));
    }

    [Fact]
    public void PublicApi_OfTheNet8Build_IsTheSameAsTheNet10Builds()
    {
        // The test project builds the library's net8.0 target too and copies it here (see its csproj), so the
        // comparison never depends on what else was built: a missing copy is a broken build, not a reason to pass.
        string net8 = Path.Combine(AppContext.BaseDirectory, "PublicApi", "net8.0", "Sharpi.Prefault.dll");
        Assert.True(File.Exists(net8), $"{net8} is missing: the test project's reference to the library's net8.0 build did not copy it");

        var context = new System.Runtime.Loader.AssemblyLoadContext("net8.0 Sharpi.Prefault", isCollectible: true);
        try
        {
            Assembly library = context.LoadFromAssemblyPath(net8);
            Assert.Equal(".NETCoreApp,Version=v8.0", library.GetCustomAttribute<System.Runtime.Versioning.TargetFrameworkAttribute>()?.FrameworkName);
            Assert.Equal(PublicApiText.Of(typeof(MmapPrefault).Assembly), PublicApiText.Of(library));
        }
        finally
        {
            context.Unload();
        }
    }

    /// <summary>The lines only one side has, up to a screenful: '-' shipped, '+' received.</summary>
    private static string FirstDifferences(string shipped, string actual)
    {
        string[] before = shipped.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        string[] after = actual.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        var removed = before.Except(after, StringComparer.Ordinal).Select(l => "- " + l);
        var added = after.Except(before, StringComparer.Ordinal).Select(l => "+ " + l);
        string[] lines = removed.Concat(added).ToArray();
        if (lines.Length == 0)
        {
            return $"The same lines in another order or spacing (a hand edit?): the received file is sorted.{Environment.NewLine}";
        }

        const int shown = 20;
        string more = lines.Length > shown ? $"... and {lines.Length - shown} more lines{Environment.NewLine}" : "";
        return string.Join(Environment.NewLine, lines.Take(shown)) + Environment.NewLine + more;
    }

    /// <summary>The shipped file in the source tree when the tests run from a checkout; else its copy in the output folder.</summary>
    private static string ShippedPathInTheSourceTree()
    {
        for (DirectoryInfo? dir = new(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            string candidate = Path.Combine(dir.FullName, "src", "Sharpi.Prefault", ShippedName);
            if (File.Exists(Path.Combine(dir.FullName, "Sharpi.Prefault.sln")) && File.Exists(candidate))
            {
                return candidate;
            }
        }

        return Path.Combine(AppContext.BaseDirectory, "PublicApi", ShippedName);
    }
}
