using System.Text.RegularExpressions;

namespace Sharpi.Prefault.Tests.Platform;

/// <summary>
/// Every open of a path the library or the tool did not create goes through FileOpener (O_NONBLOCK, the descriptor
/// checked, the flag cleared): an open by path elsewhere blocks on a FIFO renamed over the file after any check. This
/// scans src/ (library, tool, companion) for opens outside FileOpener and fails on one that is not on the allow-list.
/// </summary>
public sealed partial class OpenSiteScanTests
{
    /// <summary>The opens left outside the helper: file, a piece of the line, and why.</summary>
    private static readonly (string File, string Line, string Reason)[] Allowed =
    [
        ("Sharpi.Prefault/Platform/FileOpener.cs", "File.OpenHandle(path, FileMode.Open", "the helper itself: Windows keeps the framework's open (no FIFOs in its file system)"),
        ("Sharpi.Prefault/Platform/FileOpener.cs", "Interop.Libc.Open(path, flags | added", "the helper itself: the O_NONBLOCK open"),
        ("Sharpi.Prefault/Platform/FileOpener.cs", "new FileStream(handle", "the helper itself: a stream over the descriptor it checked"),
        ("Sharpi.Prefault/Platform/KernelFile.cs", "File.ReadAllText(path)", "kernel files (/proc, /sys) off Linux only; on Linux they are read through the helper"),
        ("Sharpi.Prefault/Platform/MappingRoom.cs", "new FileStream(\"/proc/self/maps\"", "this process's own /proc file, which no one can rename a FIFO over"),
        ("Sharpi.Prefault/Platform/ProcPagemap.cs", "File.OpenHandle(\"/proc/self/pagemap\"", "this process's own /proc file"),
        ("Sharpi.Prefault/Platform/MappingQuery.cs", "File.OpenHandle(ProcMaps.SelfMapsPath", "this process's own /proc/self/maps"),
        ("Sharpi.Prefault/Prefault/FileReadTouch.cs", "File.OpenHandle(OwnMemoryPath", "this process's own /proc/self/mem"),
        ("Sharpi.Prefault/PageCache/FileWarmup.cs", "File.OpenHandle(\"/dev/null\"", "/dev/null, written to, a device the helper (a reader of files) does not serve"),
        ("Sharpi.Prefault/Prefault/SweepFailureText.cs", "Interop.Libc.Open(directory", "a directory (statfs of its file system), opened with O_NONBLOCK; the helper opens files"),
        ("Sharpi.Prefault.Cli/Files/PidFile.cs", "File.OpenHandle(path, FileMode.Open, write", "off Linux only (no OFD lock there, the pid alone judges); on Linux through FileOpener.TryOpenKept"),
        ("Sharpi.Prefault.Cli/Files/PidFile.cs", "File.OpenHandle(path, FileMode.CreateNew", "off Linux only; on Linux an O_EXCL|O_NOFOLLOW create through FileOpener.TryOpenKept"),
    ];

    private static readonly string[] Projects = ["Sharpi.Prefault", "Sharpi.Prefault.Cli", "Sharpi.Prefault.LLamaSharp"];

    [Fact]
    public void Sources_OpenPathsOnlyThroughFileOpener_OrAnAllowedSite()
    {
        Assert.Empty(Unallowed(Sources()));
    }

    [Fact]
    public void AllowList_NamesOnlySitesThatExist()
    {
        List<(string File, string Line)> hits = Opens(Sources());

        Assert.All(Allowed, a => Assert.Contains(hits, h => h.File == a.File && h.Line.Contains(a.Line, StringComparison.Ordinal)));
        Assert.All(Allowed, a => Assert.False(string.IsNullOrWhiteSpace(a.Reason)));
    }

    [Theory]
    [InlineData("using var s = new FileStream(path, FileMode.Open, FileAccess.Read);")]
    [InlineData("using SafeFileHandle h = File.OpenHandle(path);")]
    [InlineData("using FileStream s = File.OpenRead(path);")]
    [InlineData("string text = File.ReadAllText(path);")]
    [InlineData("foreach (string l in File.ReadLines(path)) { }")]
    [InlineData("using SafeFileHandle h = Interop.Libc.Open(path, 0, 0);")]
    [InlineData("FileStream s = new(path, FileMode.Open);")]
    public void Sources_WithAPlantedOpen_IsReported(string planted)
    {
        var sources = Sources().Select(s => s.File == "Sharpi.Prefault/Models/TensorIndex.cs" ? (s.File, s.Text + "\n" + planted + "\n") : s).ToList();

        string report = Assert.Single(Unallowed(sources));
        Assert.StartsWith("Sharpi.Prefault/Models/TensorIndex.cs:", report, StringComparison.Ordinal);
    }

    [Fact]
    public void Sources_AnOpenInAComment_IsNotReported()
    {
        var sources = Sources().Select(s => s.File == "Sharpi.Prefault/Models/TensorIndex.cs" ? (s.File, s.Text + "\n    // File.OpenRead(path) would block\n") : s).ToList();

        Assert.Empty(Unallowed(sources));
    }

    private static List<string> Unallowed(List<(string File, string Text)> sources) =>
        Opens(sources)
            .Where(h => !Allowed.Any(a => a.File == h.File && h.Line.Contains(a.Line, StringComparison.Ordinal)))
            .Select(h => $"{h.File}: {h.Line}")
            .ToList();

    private static List<(string File, string Line)> Opens(List<(string File, string Text)> sources)
    {
        var hits = new List<(string, string)>();
        foreach ((string file, string text) in sources)
        {
            foreach (string raw in text.Split('\n'))
            {
                string line = raw.Trim();
                if (line.StartsWith("//", StringComparison.Ordinal) || line.StartsWith('*'))
                {
                    continue;
                }

                if (OpenCall().IsMatch(line))
                {
                    hits.Add((file, line));
                }
            }
        }

        return hits;
    }

    private static List<(string File, string Text)> Sources()
    {
        string src = Path.Combine(RepositoryRoot(), "src");
        var sources = new List<(string, string)>();
        foreach (string project in Projects)
        {
            string root = Path.Combine(src, project);
            foreach (string path in Directory.EnumerateFiles(root, "*.cs", SearchOption.AllDirectories).Order(StringComparer.Ordinal))
            {
                string relative = Path.GetRelativePath(src, path).Replace('\\', '/');
                if (!relative.Contains("/obj/", StringComparison.Ordinal) && !relative.Contains("/bin/", StringComparison.Ordinal))
                {
                    sources.Add((relative, File.ReadAllText(path)));
                }
            }
        }

        Assert.Contains(sources, s => ((string File, string Text))s is { File: "Sharpi.Prefault/Platform/FileOpener.cs" });
        return sources;
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

        throw new InvalidOperationException($"No checkout above {AppContext.BaseDirectory}: the open scan reads the sources.");
    }

    // An open by path: any FileMode (FileStream, File.Open*, a target-typed new), File.Open*/ReadAll*/ReadLines, and
    // the open/openat interop.
    [GeneratedRegex(@"FileMode\.|\bFile\.Open\w*\s*\(|\bnew\s+FileStream\s*\(|\bFile\.(ReadAll\w*|ReadLines)\s*\(|\bLibc\.Open(at)?\s*\(")]
    private static partial Regex OpenCall();
}
