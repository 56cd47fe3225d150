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
        string receivedPath = Path.Combine(Path.GetDirectoryName(shippedPath)!, ReceivedName);
        if (actual == shipped)
        {
            File.Delete(receivedPath);
            return;
        }

        File.WriteAllText(receivedPath, actual);
        Assert.Fail(
            $"The public API of Sharpi.Prefault differs from {ShippedName}.{Environment.NewLine}" +
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
        // The net8.0 build of the library from the same checkout and configuration, where the solution build put it.
        string? net8 = Net8BuildPath();
        if (net8 is null)
        {
            return; // run from outside a checkout (a copied output folder): nothing to compare with
        }

        var context = new System.Runtime.Loader.AssemblyLoadContext("net8.0 Sharpi.Prefault", isCollectible: true);
        try
        {
            Assert.Equal(PublicApiText.Of(typeof(MmapPrefault).Assembly), PublicApiText.Of(context.LoadFromAssemblyPath(net8)));
        }
        finally
        {
            context.Unload();
        }
    }

    private static string? Net8BuildPath()
    {
        string shipped = ShippedPathInTheSourceTree();
        string configuration = new DirectoryInfo(AppContext.BaseDirectory).Parent?.Name ?? "Release"; // bin/<Configuration>/net10.0/
        string candidate = Path.Combine(Path.GetDirectoryName(shipped)!, "bin", configuration, "net8.0", "Sharpi.Prefault.dll");
        return File.Exists(candidate) ? candidate : null;
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
