using System.Reflection;
using System.Text.RegularExpressions;
using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault.Tests.PublicApi;

/// <summary>
/// The package README's sample log line is a line the library prints: the run's
/// Information message (<c>Log.Completed</c>'s template), with its numbers formatted as the template formats them, and
/// the console provider the README names is the one the consumer project compiles for net8.0. The README showed
/// <c>Pre-faulted 16.39 GiB ... (5.3 GiB/s)</c>, a format the library never had.
/// </summary>
public sealed class DocumentationLogLineTests
{
    private static readonly string Root = Path.Combine(AppContext.BaseDirectory, "Snippets");

    [Theory]
    [InlineData("src/Sharpi.Prefault/README.md", "// logs: ")]
    public void QuickStartLogLine_IsInTheFormatTheLibraryPrints(string document, string lead)
    {
        (string template, int eventId) = CompletedMessage();
        var format = new Regex("^" + Pattern(template) + "$", RegexOptions.CultureInvariant);
        string line = File.ReadAllLines(Path.Combine(Root, document)).Select(l => l.Trim()).Single(l => l.Contains("Pre-faulted", StringComparison.Ordinal));

        Assert.StartsWith(lead, line, StringComparison.Ordinal);
        string message = line[lead.Length..];
        if (document == "README.md")
        {
            // SimpleConsole with SingleLine: "info: CATEGORY[EVENTID] message", the category the snippet's CreateLogger names.
            string console = $"info: engine[{eventId}] ";
            Assert.StartsWith(console, message, StringComparison.Ordinal);
            message = message[console.Length..];
        }

        Assert.Matches(format, message);
    }

    /// <summary>The pattern matches what a real run logs: a test of the test, so a pattern that matches nothing cannot pass the READMEs.</summary>
    [Fact]
    public void CompletedMessagePattern_MatchesARealRunsLine()
    {
        (string template, _) = CompletedMessage();
        using TestFile file = TestFile.Create(4 * TestFile.MiB);
        using MappedFile map = MappedFile.ReadOnly(file.Path);
        var log = new ListLogger();

        PrefaultResult result = MmapPrefault.Run([map.Region(0, map.Length, "weights")], new PrefaultOptions { Label = "engine", Logger = log, RamGate = RamGate.Always });

        string message = Assert.Single(log.At(LogLevel.Information), m => m.Contains("Pre-faulted", StringComparison.Ordinal));
        Assert.Matches(new Regex("^" + Pattern(template) + "$", RegexOptions.CultureInvariant), message);
        Assert.Contains($"Pre-faulted {result.Bytes:N0} bytes", message, StringComparison.Ordinal);
    }

    /// <summary>
    /// The README names the console provider's version to add: the one Directory.Packages.props pins, which the consumer
    /// project (net8.0, warnings as errors) compiles the Quick start against. The newest, 11.0, warns on net8.0.
    /// </summary>
    [Fact]
    public void QuickStart_NamesTheConsoleProviderVersionTheConsumerBuildsWith()
    {
        string readme = File.ReadAllText(Path.Combine(Root, "README.md"));
        string named = Regex.Match(readme, @"dotnet add package Microsoft\.Extensions\.Logging\.Console --version (\S+?)`").Groups[1].Value;
        string pinned = Regex.Match(File.ReadAllText(Path.Combine(Root, "Directory.Packages.props")),
            @"<PackageVersion Include=""Microsoft\.Extensions\.Logging\.Console"" Version=""([^""]+)""").Groups[1].Value;
        string consumer = File.ReadAllText(Path.Combine(Root, "Consumer", "Sharpi.Prefault.Consumer.csproj"));

        Assert.NotEmpty(named);
        Assert.Equal(pinned, named);
        Assert.StartsWith("10.", named, StringComparison.Ordinal);
        Assert.Contains(@"<PackageReference Include=""Microsoft.Extensions.Logging.Console"" />", consumer, StringComparison.Ordinal);
        Assert.Contains("net8.0", consumer, StringComparison.Ordinal);
    }

    /// <summary>The run's Information message template and event id, as the library declares them.</summary>
    private static (string Template, int EventId) CompletedMessage()
    {
        MethodInfo completed = typeof(MmapPrefault).Assembly.GetType("Sharpi.Prefault.Log", throwOnError: true)!
            .GetMethod("Completed", BindingFlags.Static | BindingFlags.NonPublic)!;
        LoggerMessageAttribute attribute = completed.GetCustomAttribute<LoggerMessageAttribute>()!;
        return (attribute.Message, attribute.EventId);
    }


    /// <summary>
    /// The template as a pattern: its text literal; <c>{X:N0}</c> a grouped integer, <c>{X:F2}</c> two decimals,
    /// <c>{Method}</c> a method's name and the populate mechanism in parentheses, <c>{Outcome}</c> the outcome's optional clauses, any other hole some text.
    /// </summary>
    private static string Pattern(string template) =>
        Regex.Replace(Regex.Escape(template), @"\\\{(\w+)(?::(\w+))?}", m => (m.Groups[1].Value, m.Groups[2].Value) switch
        {
            (_, "N0") => @"\d{1,3}(,\d{3})*",
            (_, "F2") => @"\d+\.\d{2}",
            ("Method", _) => @"(none|populate|touch|hint)( \([a-z -]+\))?", // the populate mechanism that ran, where there is one
            ("Outcome", _) => @"(; (cancelled, \S+ \S+ left|partial, \S+ \S+ skipped by the RAM budget|\d+ region\(s\) failed))?",
            _ => @"[^\]]+",
        });
}
