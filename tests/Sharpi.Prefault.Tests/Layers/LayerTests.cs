using System.Text.RegularExpressions;

namespace Sharpi.Prefault.Tests.Layers;

/// <summary>
/// The library's folders are layers, and its references point down only: the table is the one in
/// docs/architecture.md, read from it, so the document and the check cannot disagree.
/// </summary>
public sealed partial class LayerTests
{
    [Fact]
    public void Library_EachFolder_UsesOnlyTheLayersBelowIt()
    {
        LayerMap map = new(Layers(), Sources());

        Assert.Empty(map.Unplaced());
        Assert.Empty(map.Violations());
    }

    [Theory]
    [InlineData("Platform/KernelFile.cs", "MmapPrefault.Run([]);", "MmapPrefault (Prefault) is up from Platform")]
    [InlineData("PageCache/PageCache.cs", "MmapReclaim.Release([]);", "MmapReclaim (Reclaim) is sideways from PageCache")]
    [InlineData("Shared/RegionSet.cs", "_ = new FileCacheProbe();", "FileCacheProbe (Platform) is up from Shared")]
    [InlineData("Platform/Mincore.cs", "Log.Completed(null!, \"\", 0, 0, 0, 0, \"\", default);", "Log.Completed (Prefault) is up from Platform")]
    [InlineData("Locking/LockLimit.cs", "string s = $\"{PrefaultOptions.Default}\";", "PrefaultOptions (Prefault) is sideways from Locking")]
    public void Library_WithAPlantedReference_IsReported(string file, string planted, string expected)
    {
        var sources = Sources().Select(s => s.RelativePath == file ? (s.RelativePath, s.Text + "\nclass Planted { void M() { " + planted + " } }\n") : s).ToList();
        Assert.Contains(sources, s => s.RelativePath == file);

        string[] violations = new LayerMap(Layers(), sources).Violations().ToArray();

        Assert.Equal($"{file}: {expected}", Assert.Single(violations));
    }

    [Fact]
    public void Library_AFileOutsideEveryLayer_IsReported()
    {
        var sources = Sources().Append(("Internal/Helpers.cs", "internal static class Helpers { }")).ToList();

        Assert.Equal("Internal/Helpers.cs: in no layer of the table", Assert.Single(new LayerMap(Layers(), sources).Unplaced()));
    }

    [Fact]
    public void CodeOnly_OfCommentsAndStrings_KeepsOnlyCodeAndInterpolationHoles()
    {
        string code = LayerMap.CodeOnly("a /* Residency */ b // MmapLock\n\"Reclaim\" $\"x {Sizes.Format(1)} {(c ? \"Prefault\" : @\"q\"\"\")}\" 'R'");

        Assert.DoesNotContain("Residency", code);
        Assert.DoesNotContain("MmapLock", code);
        Assert.DoesNotContain("Reclaim", code);
        Assert.DoesNotContain("Prefault", code);
        Assert.Contains("Sizes.Format(1)", code);
    }

    /// <summary>The layer table of docs/architecture.md, bottom first: its lines "layer N  Folder Folder ...".</summary>
    private static List<string[]> Layers()
    {
        string doc = File.ReadAllText(Path.Combine(RepositoryRoot(), "docs", "architecture.md"));
        var layers = LayerLine().Matches(doc)
            .Select(m => (Rank: int.Parse(m.Groups["rank"].Value, System.Globalization.CultureInfo.InvariantCulture),
                Folders: m.Groups["folders"].Value.Split(' ', StringSplitOptions.RemoveEmptyEntries)))
            .OrderBy(l => l.Rank)
            .ToList();
        Assert.True(layers.Count >= 3, "docs/architecture.md has no layer table (lines 'layer N  Folder ...')");
        Assert.Equal(Enumerable.Range(0, layers.Count), layers.Select(l => l.Rank));
        return layers.Select(l => l.Folders).ToList();
    }

    private static List<(string RelativePath, string Text)> Sources()
    {
        string project = Path.Combine(RepositoryRoot(), "src", "Sharpi.Prefault");
        return Directory.EnumerateFiles(project, "*.cs", SearchOption.AllDirectories)
            .Select(p => Path.GetRelativePath(project, p).Replace('\\', '/'))
            .Where(p => !p.StartsWith("obj/", StringComparison.Ordinal) && !p.StartsWith("bin/", StringComparison.Ordinal))
            .Order(StringComparer.Ordinal)
            .Select(p => (p, File.ReadAllText(Path.Combine(project, p))))
            .ToList();
    }

    private static string RepositoryRoot()
    {
        for (DirectoryInfo? dir = new(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Sharpi.Prefault.sln")))
            {
                return dir.FullName;
            }
        }

        throw new InvalidOperationException($"No checkout above {AppContext.BaseDirectory}: the layer check reads the library's sources.");
    }

    [GeneratedRegex(@"^layer (?<rank>\d+) +(?<folders>[A-Za-z ]+?) *$", RegexOptions.Multiline)]
    private static partial Regex LayerLine();
}
