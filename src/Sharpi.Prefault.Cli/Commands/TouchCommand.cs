using System.CommandLine;
using System.Globalization;
using Sharpi.Prefault.Cli.Files;
using Sharpi.Prefault.Cli.Output;

namespace Sharpi.Prefault.Cli.Commands;

/// <summary><c>touch</c>: map the files and make them (or the selected tensors) resident, as an engine's load would.</summary>
internal static class TouchCommand
{
    public static Command Create()
    {
        Argument<string[]> files = CommonOptions.Files();
        Option<string[]> tensor = CommonOptions.Tensor();
        Option<string[]> exclude = CommonOptions.Exclude();
        Option<bool> recursive = CommonOptions.Recursive();
        Option<bool> json = CommonOptions.Json();
        var gate = new Option<string>("--gate")
        {
            Description = "The RAM-fit gate: 'fits' prefaults only what fits in available memory (in argument order), 'always' everything.",
            DefaultValueFactory = _ => "fits",
        };
        gate.AcceptOnlyFromAmong("always", "fits");

        var command = new Command("touch", "Map FILEs and prefault them (or the selected tensors) into the page cache.")
        {
            files, tensor, exclude, recursive, gate, json,
        };
        // The token is cancelled on Ctrl+C / SIGTERM: the sweep stops between chunks and the partial result is printed.
        command.SetAction((parse, cancellationToken) => Task.FromResult(Run(
            CliContext.From(parse),
            parse.GetRequiredValue(files),
            CommonOptions.Filter(parse, tensor, exclude),
            parse.GetValue(recursive),
            parse.GetValue(gate) == "always" ? RamGate.Always : RamGate.FitsInRam,
            parse.GetValue(json),
            cancellationToken)));
        return command;
    }

    private static int Run(CliContext context, string[] paths, TensorFilter filter, bool recursive, RamGate gate, bool json, CancellationToken cancellationToken)
    {
        List<FileTarget> targets = Targets.Resolve(context, paths, filter, readModels: false, recursive);
        using FileMappings mappings = FileMappings.Open(context, targets);

        // One run over every file, in argument order: a partial prefault (RAM gate) keeps the first files whole.
        var regions = new List<PrefaultRegion>();
        var files = new List<TouchFileJson>(mappings.Items.Count);
        foreach (FileMapping mapping in mappings.Items)
        {
            List<PrefaultRegion> fileRegions = mapping.Regions(tensorsOnly: filter.NamesTensors);
            regions.AddRange(fileRegions);
            files.Add(new TouchFileJson(mapping.Target.DisplayPath, Sum(fileRegions), filter.NamesTensors ? fileRegions.Count : null));
        }

        PrefaultResult result = Prefault(context, regions, files.ConvertAll(f => (f.File, f.Bytes)), gate, cancellationToken);
        if (Sum(regions) == 0 && !CliContext.KillSwitchIsOn(out _))
        {
            // The library's "(all empty)" would hide a missing file behind a claim about its size.
            result = result with { Reason = context.FailureCount > 0 ? "nothing touched: no file could be used" : "nothing to touch: the files are empty" };
        }

        if (json)
        {
            CliJsonContext.Write(context.Out, ToJson(result, files, context.Failures), CliJsonContext.Output.TouchJson);
        }
        else
        {
            WriteText(context.Out, result, files.Count);
        }

        return ExitCode(context, result);
    }

    /// <summary>
    /// docs/cli.md's contract: interrupted is 130 (Program makes it 143 for SIGTERM); a RAM gate that left anything
    /// out is partial (1), as is any failed file or region; the operators' kill switch is not an error (0, and said).
    /// </summary>
    private static int ExitCode(CliContext context, PrefaultResult result)
    {
        if (result.IsCanceled)
        {
            return ExitCodes.Interrupted;
        }

        if (result.IsPartial || (!result.HasRun && result.BytesRequested > result.BytesAlreadyResident && !CliContext.KillSwitchIsOn(out _)))
        {
            return ExitCodes.Partial;
        }

        return context.ExitCode;
    }

    /// <summary>One prefault over the regions with a progress display on stderr; each failed region is reported.</summary>
    internal static PrefaultResult Prefault(
        CliContext context, List<PrefaultRegion> regions, IReadOnlyList<(string Name, long Bytes)> files, RamGate gate, CancellationToken cancellationToken)
    {
        PrefaultResult result;
        using (var progress = new ProgressBar(context.Err, context.ErrIsTerminal, files))
        {
            result = MmapPrefault.Run(regions, PrefaultOptions.Default with
            {
                Label = CliApp.Name,
                RamGate = gate,
                Progress = progress,
                Logger = context.Logger,
            }, cancellationToken);
        }

        foreach (RegionFailure failure in result.Failures)
        {
            context.Fail(failure.Name, failure.Message);
        }

        if (!result.HasRun && CliContext.KillSwitchIsOn(out string reason))
        {
            context.Note("nothing prefaulted", $"{reason}; the kill switch wins over --gate always and every other option.");
        }

        return result;
    }

    /// <param name="failures">Every failure the command reported: a file that could not be used as well as a region that failed.</param>
    private static TouchJson ToJson(PrefaultResult result, List<TouchFileJson> files, IReadOnlyList<FailureJson> failures) =>
        new(result.HasRun, result.Bytes, result.BytesAlreadyResident, result.Elapsed.TotalSeconds, result.GiBPerSecond,
            PrefaultMethodNames.Of(result.Method), result.Reason, files)
        {
            Partial = result.IsPartial,
            Cancelled = result.IsCanceled,
            BytesRequested = result.BytesRequested,
            Threads = result.Threads,
            Failures = [.. failures],
        };

    private static void WriteText(TextWriter output, PrefaultResult result, int fileCount)
    {
        if (!result.HasRun)
        {
            string reason = SafeText.Escape(result.Reason);
            output.WriteLine(reason.StartsWith("nothing", StringComparison.Ordinal) ? reason : $"not prefaulted: {reason}");
            return;
        }

        // What was not done comes first, so neither a reader nor `head -1` can take a partial run for a whole one.
        string lead = result.IsCanceled
            ? string.Create(CultureInfo.InvariantCulture, $"cancelled: touched {Sizes.Format(result.Bytes)}, {Sizes.Format(result.BytesSkipped)} of {Sizes.Format(result.BytesRequested)} not done; ")
            : result.IsPartial
                ? string.Create(CultureInfo.InvariantCulture, $"partial: the RAM gate left {Sizes.Format(result.BytesSkipped)} of {Sizes.Format(result.BytesRequested)} untouched; ")
                : string.Empty;
        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{lead}touched {fileCount} file(s): {Sizes.Format(result.Bytes)} in {result.Elapsed.TotalSeconds:0.000} s ({result.GiBPerSecond:0.00} GiB/s), {Sizes.Format(result.BytesAlreadyResident)} already resident, method {PrefaultMethodNames.Of(result.Method)}, {result.Threads} thread(s)"));
        output.WriteLine($"reason: {SafeText.Escape(result.Reason)}");
    }

    private static long Sum(List<PrefaultRegion> regions)
    {
        long total = 0;
        foreach (PrefaultRegion region in regions)
        {
            total += region.Length;
        }

        return total;
    }
}
