using System.CommandLine;

namespace Sharpi.Prefault.Bench;

/// <summary>The options every file-based command shares: which file, how often, where the results go.</summary>
/// <param name="defaultSize">The generated file's size without <c>--size</c>.</param>
/// <param name="sizeDescription">What <c>--size</c> sizes, where it is not the generated weights file.</param>
/// <param name="acceptsFile">False for a command that writes its own file (engine: a model the engine can load): no <c>--file</c>.</param>
internal sealed class CommonOptions(long defaultSize = CommonOptions.DefaultSize, string? sizeDescription = null, bool acceptsFile = true)
{
    internal const long DefaultSize = 2L << 30;

    internal Option<long> Size { get; } = SizeOption("--size", defaultSize,
        sizeDescription ?? "Size of the generated weights file (random, incompressible bytes), e.g. 512M, 2G. Ignored with --file.");

    internal Option<string?> File { get; } = new("--file")
    {
        Description = "An existing weights file (for example a real GGUF model) to use instead of a generated one; it is never changed or deleted.",
    };

    internal Option<string> Dir { get; } = new("--dir")
    {
        Description = "Directory of the generated weights file (on a disk filesystem: tmpfs cannot be made cold).",
        DefaultValueFactory = _ => WeightsFile.DefaultDirectory,
    };

    internal Option<bool> Cleanup { get; } = new("--cleanup")
    {
        Description = "Delete the generated weights file at the end (it is kept and reused otherwise).",
    };

    internal Option<int> Repeat { get; } = new("--repeat")
    {
        Description = "Repetitions of every row; medians are reported, with min-max.",
        DefaultValueFactory = _ => 3,
    };

    internal Option<string?> Json { get; } = new("--json")
    {
        Description = "Write the results as JSON to this file.",
    };

    internal Option<string?> Markdown { get; } = new("--markdown")
    {
        Description = "Write the results as a Markdown section (machine, table, Mermaid chart) to this file.",
    };

    internal Option<string> FreePageReporting { get; } = FreePageReportingOption();

    /// <summary><c>--free-page-reporting keep|suspend</c>, for a command that takes it without the other common options.</summary>
    internal static Option<string> FreePageReportingOption() => BenchCommand.Defaulted("--free-page-reporting", "keep",
        "keep (default): leave a VM's free page reporting as the machine has it. suspend: turn it off for the run, as on bare metal " +
        "(root; said before it is changed, restored at the end, on errors and on Ctrl+C/SIGTERM).");

    internal void AddTo(Command command)
    {
        FreePageReporting.AcceptOnlyFromAmong("suspend", "keep");
        Repeat.Validators.Add(static r =>
        {
            if (r.GetValueOrDefault<int>() < 1)
            {
                r.AddError("--repeat must be at least 1.");
            }
        });
        foreach (Option option in (Option[])[Size, File, Dir, Cleanup, Repeat, Json, Markdown, FreePageReporting])
        {
            if (acceptsFile || option != File)
            {
                command.Options.Add(option);
            }
        }
    }

    /// <summary>Suspends free page reporting for the run only with <c>--free-page-reporting suspend</c> (see <see cref="Bench.FreePageReporting"/>).</summary>
    internal Bench.FreePageReporting.Suspension? SuspendPageReporting(ParseResult parse, List<string> notes, ProgressLine progress) =>
        Bench.FreePageReporting.Suspend(suspend: parse.GetValue(FreePageReporting) == "suspend", notes, progress);

    /// <summary>The file to map: the caller's, or the default one (written on the first run, reused after).</summary>
    internal WeightsFile ResolveFile(ParseResult parse, ProgressLine progress) =>
        parse.GetValue(File) is { } path
            ? WeightsFile.Existing(path)
            : WeightsFile.OpenOrCreate(parse.GetValue(Dir)!, parse.GetValue(Size), progress);

    /// <summary>Deletes the generated file when asked; a file given with --file is never touched.</summary>
    internal void CleanUp(ParseResult parse, WeightsFile file, ProgressLine progress)
    {
        if (!parse.GetValue(Cleanup))
        {
            return;
        }

        if (!file.Generated)
        {
            progress.Note($"--cleanup: {file.Path} was given with --file; left in place.");
            return;
        }

        System.IO.File.Delete(file.Path);
        progress.Note($"Deleted {file.Path}.");
    }

    /// <summary>
    /// Prints the table (<paramref name="wide"/>: every column; the files always get all of them), the notes and the
    /// verdict, and writes the JSON and Markdown files that were asked for.
    /// </summary>
    internal void Publish(ParseResult parse, BenchReport report, string title, ProgressLine progress, bool wide = true)
    {
        Console.Out.WriteLine();
        if (report.Headline is { } headline)
        {
            // The answer first: did the prefault help on this machine, and by how much.
            WriteWrapped(headline, indent: string.Empty);
            Console.Out.WriteLine();
        }

        WriteWrapped($"{title} ({report.Machine.Describe()})", indent: string.Empty);
        WriteWrapped($"Storage: {report.Machine.DescribeStorage()}", indent: string.Empty);
        WriteWrapped($"Host: {report.Machine.DescribeHost()}", indent: string.Empty);
        if (report.Request is { } request)
        {
            WriteWrapped($"Request: {request}; warm: {(report.WarmRequestSeconds is double warm ? ResultTable.Seconds(warm) + " s" : "not measured")}", indent: string.Empty);
        }

        // The verdict first, where a newcomer reads; the table that backs it after.
        if (report.Verdict is { } verdict)
        {
            Console.Out.WriteLine();
            foreach (string line in verdict.Split(Environment.NewLine))
            {
                string trimmed = line.TrimStart(' ');
                WriteWrapped(trimmed, indent: line[..(line.Length - trimmed.Length)]);
            }
        }

        Console.Out.WriteLine();
        Console.Out.Write(ResultTable.Render(report.Results, markdown: false, wide));
        if (wide || report.Legend is null)
        {
            foreach (string note in report.Notes)
            {
                Console.Out.WriteLine("  " + note);
            }
        }
        else
        {
            foreach (string note in (string[])[.. report.Legend, .. report.Conditions])
            {
                WriteWrapped(note, indent: "  ");
            }
        }

        // Loud on purpose, and last, where a reader of the table looks: a limit that a row beats makes every x limit wrong.
        foreach (string bug in report.Bugs)
        {
            Console.Out.WriteLine();
            WriteWrapped("!!! " + bug, indent: string.Empty);
            Console.Error.WriteLine(bug);
        }

        if (parse.GetValue(Json) is { } json)
        {
            ReportWriter.WriteJson(json, report);
            progress.Note($"Wrote {json}.");
        }

        if (parse.GetValue(Markdown) is { } markdown)
        {
            ReportWriter.WriteMarkdown(markdown, report, title);
            progress.Note($"Wrote {markdown}.");
        }
    }

    /// <summary>The width the default output keeps to (the full table is behind <c>--wide</c>).</summary>
    internal const int Columns = 100;

    /// <summary>Writes <paramref name="text"/> within <see cref="Columns"/>: its first line after <paramref name="indent"/>, the rest two spaces further in.</summary>
    internal static void WriteWrapped(string text, string indent)
    {
        string prefix = indent;
        foreach (string line in Wrap(text, Columns - indent.Length - 2))
        {
            Console.Out.WriteLine(prefix + line);
            prefix = indent + "  ";
        }
    }

    /// <summary>Splits <paramref name="text"/> at spaces into lines of at most <paramref name="width"/> characters (a longer word stands alone).</summary>
    internal static IEnumerable<string> Wrap(string text, int width)
    {
        int start = 0;
        while (text.Length - start > width)
        {
            int cut = text.LastIndexOf(' ', start + width, width);
            if (cut <= start)
            {
                cut = text.IndexOf(' ', start + width);
                if (cut < 0)
                {
                    break;
                }
            }

            yield return text[start..cut];
            start = cut + 1;
        }

        yield return text[start..];
    }

    /// <summary>The command line as typed after the program name, for the report.</summary>
    internal static string CommandLine(ParseResult parse, string command)
    {
        string typed = string.Join(' ', parse.Tokens.Select(static t => t.Value));
        return typed.StartsWith(command, StringComparison.Ordinal) ? typed : (command + " " + typed).Trim();
    }

    internal static Option<long> SizeOption(string name, long defaultValue, string description) => new(name)
    {
        Description = description,
        DefaultValueFactory = _ => defaultValue,
        CustomParser = result =>
        {
            if (result.Tokens.Count == 0)
            {
                return defaultValue;
            }

            string text = result.Tokens[0].Value;
            if (ByteSize.TryParse(text, out long bytes) && bytes > 0)
            {
                return bytes;
            }

            result.AddError($"{name}: '{text}' is not a size; write for example 512M, 2G or 1073741824.");
            return 0;
        },
    };
}
