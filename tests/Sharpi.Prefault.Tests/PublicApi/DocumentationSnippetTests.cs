using System.Collections.Immutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;

namespace Sharpi.Prefault.Tests.PublicApi;

/// <summary>
/// Every <c>```csharp</c> block of the READMEs and docs/ compiles exactly as shown, as a new console project would
/// compile it pasted into its Program.cs (the SDK's implicit usings, nullable on, warnings as errors): once for net8.0
/// with C# 12 and once for net10.0, against the references tests/Sharpi.Prefault.Consumer compiles with for each
/// (the library, the LLamaSharp companion, ONNX Runtime, the console logger). A block marked
/// <c>```csharp snippet-partial</c> (an API outline) is not compiled, and <see cref="PartialSnippets_AreTheListedOnes"/>
/// names each one, so marking a block partial is a visible change here.
/// </summary>
public sealed class DocumentationSnippetTests
{
    private const string PartialFence = "```csharp snippet-partial";

    private static readonly string Root = Path.Combine(AppContext.BaseDirectory, "Snippets");

    /// <summary>The READMEs and every page of docs/ (a new page's snippets are compiled without a change here).</summary>
    private static readonly string[] Readmes = ["README.md", "src/Sharpi.Prefault/README.md", "src/Sharpi.Prefault.LLamaSharp/README.md"];

    /// <summary>What <c>dotnet new console</c> turns on (ImplicitUsings), so a pasted snippet sees the same names.</summary>
    private const string ImplicitUsings = """
        global using global::System;
        global using global::System.Collections.Generic;
        global using global::System.IO;
        global using global::System.Linq;
        global using global::System.Net.Http;
        global using global::System.Threading;
        global using global::System.Threading.Tasks;
        """;

    private readonly ITestOutputHelper _output;

    public DocumentationSnippetTests(ITestOutputHelper output) => _output = output;

    private static IEnumerable<string> Documents =>
        Readmes.Concat(
            Directory.GetFiles(Path.Combine(Root, "docs"), "*.md").Select(f => "docs/" + Path.GetFileName(f)).Order(StringComparer.Ordinal));

    public static TheoryData<string, int, string> Snippets()
    {
        var data = new TheoryData<string, int, string>();
        foreach (string document in Documents)
        {
            foreach (Block block in Blocks(document).Where(b => !b.IsPartial))
            {
                foreach (string target in new[] { "net8.0", "net10.0" })
                {
                    data.Add(document, block.Number, target);
                }
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Snippets))]
    public void Snippet_CompilesAsShown(string document, int number, string target)
    {
        Block block = Blocks(document).Single(b => b.Number == number);

        IReadOnlyList<string> errors = Compile(block.Text, target);

        Assert.True(errors.Count == 0,
            $"C# block {number} of {document} (line {block.Line}) does not compile as shown for {target}; a user who pastes it " +
            $"into a new console project gets:{Environment.NewLine}{string.Join(Environment.NewLine, errors)}" +
            $"{Environment.NewLine}--- the block ---{Environment.NewLine}{block.Text}");
    }

    /// <summary>The blocks the documents mark partial, by document and first line: each is skipped by the compile above.</summary>
    [Fact]
    public void PartialSnippets_AreTheListedOnes()
    {
        var partial = Documents.SelectMany(d => Blocks(d).Where(b => b.IsPartial).Select(b => (Document: d, Block: b))).ToList();
        foreach ((string document, Block block) in partial)
        {
            _output.WriteLine($"not compiled (snippet-partial): {document} block {block.Number}, line {block.Line}");
        }

        Assert.Equal(
            ["docs/direct-io.md: public sealed class DirectFileReader : IDisposable, IAsyncDisposable"],
            partial.Select(p => $"{p.Document}: {p.Block.Text.Split('\n')[0].Trim()}"));
    }

    /// <summary>A test of the test: a block broken as a user might break it fails to compile, for both targets.</summary>
    [Theory]
    [InlineData("net8.0")]
    [InlineData("net10.0")]
    public void BrokenSnippet_DoesNotCompile(string target)
    {
        Block quickStart = Blocks("README.md").First(b => !b.IsPartial);
        Assert.Empty(Compile(quickStart.Text, target));

        // The README's old Quick start: names the snippet used but never declared (CS0103).
        string broken = quickStart.Text.Replace("long embdOffset", "long unusedOffset", StringComparison.Ordinal);
        Assert.NotEqual(quickStart.Text, broken);
        Assert.Contains(Compile(broken, target), e => e.Contains("CS0103", StringComparison.Ordinal));

        // A C# 13 feature (params of a collection type) compiles for net10.0 but not for net8.0's C# 12.
        IReadOnlyList<string> csharp13 = Compile("static int Count(params ReadOnlySpan<int> xs) => xs.Length;\nConsole.WriteLine(Count(1, 2));", target);
        Assert.Equal(target == "net8.0", csharp13.Count > 0);
    }

    [Fact]
    public void Snippets_AreFoundInEveryReadme()
    {
        Assert.Equal(4, Blocks("README.md").Count(b => !b.IsPartial));
        Assert.Single(Blocks("src/Sharpi.Prefault/README.md"));
        Assert.Equal(2, Blocks("src/Sharpi.Prefault.LLamaSharp/README.md").Count);
    }

    /// <summary>Errors and warnings of the block compiled as a program of its own for the target, as "line: id: message".</summary>
    private static IReadOnlyList<string> Compile(string text, string target)
    {
        (LanguageVersion language, ImmutableArray<MetadataReference> references) = Target(target);
        var parse = new CSharpParseOptions(language);
        SyntaxTree snippet = CSharpSyntaxTree.ParseText(text, parse, path: "Program.cs");
        SyntaxTree usings = CSharpSyntaxTree.ParseText(ImplicitUsings, parse, path: "GlobalUsings.g.cs");
        bool isProgram = snippet.GetCompilationUnitRoot().Members.Any(m => m is Microsoft.CodeAnalysis.CSharp.Syntax.GlobalStatementSyntax);
        var options = new CSharpCompilationOptions(isProgram ? OutputKind.ConsoleApplication : OutputKind.DynamicallyLinkedLibrary,
            nullableContextOptions: NullableContextOptions.Enable,
            // The SDK's own NoWarn (CS1701, CS1702: a reference built against an older System.Runtime, as ONNX Runtime's is).
            specificDiagnosticOptions: [new("CS1701", ReportDiagnostic.Suppress), new("CS1702", ReportDiagnostic.Suppress)]);
        CSharpCompilation compilation = CSharpCompilation.Create("Snippet", [usings, snippet], references, options);

        using var peStream = new MemoryStream();
        return [.. compilation.Emit(peStream).Diagnostics
            .Where(d => d.Severity >= DiagnosticSeverity.Warning && d.Id != "CS8019") // CS8019: an implicit using the block does not need
            .Select(d => $"{d.Location.GetLineSpan().StartLinePosition.Line + 1}: {d.Id}: {d.GetMessage(System.Globalization.CultureInfo.InvariantCulture)}")];
    }

    private static readonly Dictionary<string, (LanguageVersion, ImmutableArray<MetadataReference>)> Targets = [];

    /// <summary>
    /// The consumer project's language version and references for the target, from the snippet-references.txt its build
    /// writes. Its net10.0 default (C# 14) is newer than this Roslyn: "default" compiles as the newest it knows.
    /// </summary>
    private static (LanguageVersion Language, ImmutableArray<MetadataReference> References) Target(string target)
    {
        lock (Targets)
        {
            if (!Targets.TryGetValue(target, out var found))
            {
                string folder = File.ReadAllLines(Path.Combine(Root, "consumers.txt"))
                    .Single(f => Path.GetFileName(Path.TrimEndingDirectorySeparator(f)) == target);
                string[] lines = File.ReadAllLines(Path.Combine(folder, "snippet-references.txt"));
                LanguageVersion language = lines[0] is "default" or "latest" or ""
                    ? LanguageVersion.Latest
                    : LanguageVersionFacts.TryParse(lines[0], out LanguageVersion parsed) ? parsed : throw new InvalidOperationException($"LangVersion '{lines[0]}'");
                found = (language, [.. lines.Skip(1).Where(l => l.Length > 0).Select(l => (MetadataReference)MetadataReference.CreateFromFile(l))]);
                Targets[target] = found;
            }

            return found;
        }
    }

    /// <summary>A fenced C# block: its number among the document's C# blocks (from 1), its fence's line, its text.</summary>
    private sealed record Block(int Number, int Line, bool IsPartial, string Text);

    private static List<Block> Blocks(string document)
    {
        var blocks = new List<Block>();
        string[] lines = File.ReadAllLines(Path.Combine(Root, document));
        for (int i = 0; i < lines.Length; i++)
        {
            string fence = lines[i].Trim();
            if (fence != "```csharp" && fence != PartialFence)
            {
                continue;
            }

            int start = i + 1;
            int end = start;
            while (end < lines.Length && lines[end].Trim() != "```")
            {
                end++;
            }

            blocks.Add(new Block(blocks.Count + 1, i + 1, fence == PartialFence, string.Join('\n', lines[start..end])));
            i = end;
        }

        return blocks;
    }
}
