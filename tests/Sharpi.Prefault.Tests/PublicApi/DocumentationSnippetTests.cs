namespace Sharpi.Prefault.Tests.PublicApi;

/// <summary>
/// The C# snippets of the READMEs and docs/ must appear verbatim in tests/Sharpi.Prefault.Consumer, which the solution
/// build compiles for net8.0 with C# 12 (and net10.0): a snippet that drifts from the API, or from the consumer's
/// copy, fails here. A snippet's leading using directives must be among its consumer file's; the rest must be a run
/// of that file's lines, indented alike. API outlines (blocks that start with a <c>public</c> declaration) list
/// signatures and are not compiled.
/// </summary>
public sealed class DocumentationSnippetTests
{
    private static readonly string Root = Path.Combine(AppContext.BaseDirectory, "Snippets");

    /// <summary>The READMEs and every page of docs/ (a new page's snippets are checked without a change here).</summary>
    private static readonly string[] Readmes = ["README.md", "src/Sharpi.Prefault/README.md", "src/Sharpi.Prefault.LLamaSharp/README.md"];

    private static IEnumerable<string> Documents =>
        Readmes.Concat(
            Directory.GetFiles(Path.Combine(Root, "docs"), "*.md").Select(f => "docs/" + Path.GetFileName(f)).Order(StringComparer.Ordinal));

    public static TheoryData<string, int> Snippets()
    {
        var data = new TheoryData<string, int>();
        foreach (string document in Documents)
        {
            List<string[]> blocks = CSharpBlocks(document);
            for (int i = 0; i < blocks.Count; i++)
            {
                data.Add(document, i + 1);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Snippets))]
    public void Snippet_AppearsVerbatimInTheConsumerProject(string document, int number)
    {
        string[] snippet = CSharpBlocks(document)[number - 1];
        (string[] usings, string[] body) = Split(snippet);

        foreach (string file in Directory.GetFiles(Path.Combine(Root, "Consumer"), "*.cs"))
        {
            string[] lines = File.ReadAllLines(file);
            if (usings.All(u => lines.Contains(u, StringComparer.Ordinal)) && ContainsIndented(lines, body))
            {
                return;
            }
        }

        Assert.Fail($"C# snippet {number} of {document} is not in tests/Sharpi.Prefault.Consumer verbatim (its using directives " +
            $"among a file's, the rest as a run of that file's lines). Copy it into a method there so that it compiles:" +
            $"{Environment.NewLine}{string.Join(Environment.NewLine, snippet)}");
    }

    [Fact]
    public void Snippets_AreFoundInEveryReadme()
    {
        Assert.Equal(4, CSharpBlocks("README.md").Count);
        Assert.Single(CSharpBlocks("src/Sharpi.Prefault/README.md"));
        Assert.Equal(2, CSharpBlocks("src/Sharpi.Prefault.LLamaSharp/README.md").Count);
    }

    /// <summary>The ```csharp blocks of a document, API outlines aside.</summary>
    private static List<string[]> CSharpBlocks(string document)
    {
        var blocks = new List<string[]>();
        List<string>? block = null;
        foreach (string line in File.ReadAllLines(Path.Combine(Root, document)))
        {
            if (block is null)
            {
                if (line.Trim() == "```csharp")
                {
                    block = [];
                }
            }
            else if (line.Trim() == "```")
            {
                if (!block.SkipWhile(string.IsNullOrWhiteSpace).FirstOrDefault("").StartsWith("public ", StringComparison.Ordinal))
                {
                    blocks.Add([.. block]);
                }

                block = null;
            }
            else
            {
                block.Add(line.TrimEnd());
            }
        }

        return blocks;
    }

    /// <summary>The leading using directives, and the code after them with blank lines trimmed from both ends.</summary>
    private static (string[] Usings, string[] Body) Split(string[] snippet)
    {
        int start = 0;
        var usings = new List<string>();
        while (start < snippet.Length && (snippet[start].Length == 0 || IsUsingDirective(snippet[start])))
        {
            if (snippet[start].Length > 0)
            {
                usings.Add(snippet[start]);
            }

            start++;
        }

        int end = snippet.Length;
        while (end > start && snippet[end - 1].Length == 0)
        {
            end--;
        }

        return ([.. usings], snippet[start..end]);
    }

    private static bool IsUsingDirective(string line) =>
        line.StartsWith("using ", StringComparison.Ordinal) && line.EndsWith(';') &&
        line["using ".Length..^1].All(c => char.IsLetterOrDigit(c) || c is '.' or '_');

    /// <summary>Whether the lines hold the body as a run of lines, each indented by the same prefix (blank lines blank).</summary>
    private static bool ContainsIndented(string[] lines, string[] body)
    {
        if (body.Length == 0)
        {
            return true;
        }

        for (int i = 0; i + body.Length <= lines.Length; i++)
        {
            string first = lines[i].TrimEnd();
            if (!first.EndsWith(body[0], StringComparison.Ordinal))
            {
                continue;
            }

            string indent = first[..^body[0].Length];
            if (indent.Trim().Length != 0)
            {
                continue;
            }

            bool all = true;
            for (int j = 1; j < body.Length && all; j++)
            {
                string line = lines[i + j].TrimEnd();
                all = body[j].Length == 0 ? line.Length == 0 : line == indent + body[j];
            }

            if (all)
            {
                return true;
            }
        }

        return false;
    }
}
