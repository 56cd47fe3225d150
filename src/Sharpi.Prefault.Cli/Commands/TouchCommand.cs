namespace Sharpi.Prefault.Cli.Commands;

/// <summary><c>touch</c>: map the files and make them (or the selected tensors) resident, as an engine's load would.</summary>
internal static class TouchCommand
{
    public static Command Create()
    {
        var selection = new FileSelectionOptions();
        Option<string> gate = CommonOptions.Gate(
            "The RAM-fit gate: 'fits' prefaults only what fits in available memory (in argument order), 'always' everything.");
        Command command = selection.CreateCommand("touch", "Map FILEs and prefault them (or the selected tensors) into the page cache.", endsOnSignal: true, gate);
        // The token is cancelled on Ctrl+C / SIGTERM: the sweep stops between chunks and the partial result is printed.
        command.SetAction((parse, cancellationToken) => Task.FromResult(Run(
            CliContext.From(parse),
            selection.Read(parse),
            CommonOptions.GetGate(parse, gate),
            cancellationToken)));
        return command;
    }

    private static int Run(CliContext context, FileSelection selection, RamGate gate, CancellationToken cancellationToken)
    {
        (string[] paths, TensorFilter filter, bool recursive, bool json) = selection;
        // Sniffing a file's format (and reading a model's header) brings pages into the cache: what was resident is taken
        // per file before anything is read, so "already resident" never counts the tool's own reads.
        var snapshot = new ResidencySnapshot();
        List<FileTarget> targets = Targets.Resolve(context, paths, filter, readModels: false, recursive, snapshot.Take);
        long residentBefore = 0;
        bool residentBeforeKnown = true;

        // One run over every file, in argument order: a partial prefault (RAM gate) keeps the first files whole.
        var files = new List<TouchFileJson>(targets.Count);
        var regions = new List<PrefaultRegion>();
        var batches = new List<PrefaultResult>(1);
        List<TouchFileJson> plan = targets.ConvertAll(t => Planned(t, filter));
        int next = 0;
        long planned = plan.Sum(f => f.Bytes);
        using (var progress = new ProgressBar(context.Err, context.ErrIsTerminal, plan.ConvertAll(f => (f.File, f.Bytes))))
        {
            long before = 0;
            do
            {
                regions.Clear();
                using FileMappings mappings = FileMappings.OpenBatch(context, targets, ref next);
                foreach (FileMapping mapping in mappings.Items)
                {
                    List<PrefaultRegion> fileRegions = mapping.Regions(tensorsOnly: filter.NamesTensors);
                    regions.AddRange(fileRegions);
                    files.Add(new TouchFileJson(mapping.Target.DisplayPath, Sum(fileRegions), filter.NamesTensors ? fileRegions.Count : null));
                    residentBeforeKnown &= AddResidentBefore(snapshot.Of(mapping), mapping.Target, filter, ref residentBefore);
                }

                // The bar counts to the whole run's bytes; the last batch to what it really sweeps, so the bar ends done.
                long total = next < targets.Count ? Math.Max(planned, before) : -1;
                PrefaultResult batch = Prefault(context, regions, gate, new BatchProgress(progress, before, total), cancellationToken);
                before += batch.Bytes;
                batches.Add(batch);
            }
            while (next < targets.Count && !StopsTheRest(batches[^1]));
        }

        // Files no batch reached (the gate cut, or a cancellation stopped, the one before): listed, counted as skipped.
        long unreached = 0;
        for (; next < targets.Count; next++)
        {
            files.Add(plan[next]);
            unreached += CliContext.KillSwitchIsOn(out _) ? 0 : plan[next].Bytes; // switched off, nothing was asked
        }

        PrefaultResult result = Merge(batches, unreached);
        bool selectedNothing = false;
        if (result.BytesRequested == 0 && !CliContext.KillSwitchIsOn(out _))
        {
            // The library's "(all empty)" would hide a missing file behind a claim about its size; and a --tensor or
            // --exclude that leaves nothing is a selection that went wrong (exit 1, as lock and keep say it), not empty files.
            selectedNothing = filter.NamesTensors && targets.Count > 0 && targets.All(t => t.Tensors is not null);
            result = new PrefaultResult(result)
            {
                Reason = selectedNothing ? "nothing to touch: no bytes selected"
                    : context.FailureCount > 0 ? "nothing touched: no file could be used"
                    : "nothing to touch: the files are empty",
            };
            if (selectedNothing && !context.Failures.Any(f => f.Name.StartsWith("--tensor '", StringComparison.Ordinal)))
            {
                context.Fail(string.Join(", ", targets.Select(t => t.DisplayPath)), "nothing to touch (no bytes selected).");
            }
        }

        // Reported as it was before the tool read anything (the decisions above keep the library's own figure).
        PrefaultResult shown = residentBeforeKnown && result.BytesAlreadyResidentUnknown == 0
            ? new PrefaultResult(result) { BytesAlreadyResident = Math.Min(result.BytesAlreadyResident, residentBefore) }
            : result;
        long shortfall = NotResidentAfter(result);
        string? shrank = shortfall > 0 ? FirstThatShrank(targets) : null;
        if (shortfall > 0)
        {
            // A file truncated while the run went on took the pages past its new end out of the page cache with it:
            // that is no sign of memory pressure, and saying so would send the operator after the wrong limit.
            string why = shrank is null
                ? "the kernel reclaimed the rest as it came in (memory is short: a cgroup's memory.max, or the machine's RAM); the engine will read those pages from disk again."
                : $"{shrank} shrank while the touch ran (truncated), and the pages past its new end left the page cache with it.";
            context.Fail("touch", string.Create(CultureInfo.InvariantCulture,
                $"only {Sizes.Format(result.BytesResident)} of the {Sizes.Format(result.Bytes)} touched stayed resident after the run: {why}"));
        }

        if (json)
        {
            CliJsonContext.Write(context.Out, ToJson(shown, files, context.Failures), CliJsonContext.Output.TouchJson);
        }
        else if (!selectedNothing)
        {
            // A selection of nothing is said on stderr alone (the glob that matched nothing, or no bytes selected).
            WriteText(context.Out, shown, files.Count, shortfall, shrank is not null);
        }

        return ExitCode(context, result);
    }

    /// <summary>
    /// The bytes a whole run (not cut by the gate, not cancelled) covered that were not resident when it ended, as far as
    /// the kernel tells: bytes of unknown residency are not counted short.
    /// </summary>
    private static long NotResidentAfter(PrefaultResult result) =>
        result.HasRun && !result.IsPartial && !result.IsCanceled
            ? Math.Max(0, result.Bytes - result.BytesResident - result.BytesResidentUnknown)
            : 0;

    /// <summary>A batch cut or skipped by the RAM gate, cancelled, or switched off: the files after it are left untouched.</summary>
    private static bool StopsTheRest(PrefaultResult batch) =>
        batch.IsCanceled || batch.IsPartial || (!batch.HasRun && (batch.BytesRequested > batch.BytesAlreadyResident || CliContext.KillSwitchIsOn(out _)));

    /// <summary>
    /// The run's result: the one batch's (the usual case), or the batches' summed, with the files no batch reached
    /// counted as skipped.
    /// </summary>
    private static PrefaultResult Merge(List<PrefaultResult> batches, long unreached)
    {
        if (batches.Count == 1 && unreached == 0)
        {
            return batches[0];
        }

        if (batches.Count == 0)
        {
            return new PrefaultResult { HasRun = false, Reason = "no regions to prefault (all empty)" };
        }

        long bytes = 0, resident = 0, residentAfter = 0, requested = 0, skipped = 0, advised = 0, unknown = 0, unknownAfter = 0;
        int regionCount = 0, threads = 0;
        var elapsed = TimeSpan.Zero;
        var failures = new List<RegionFailure>();
        PrefaultResult? ran = null;
        foreach (PrefaultResult b in batches)
        {
            bytes += b.Bytes;
            resident += b.BytesAlreadyResident;
            residentAfter += b.BytesResident;
            unknown += b.BytesAlreadyResidentUnknown;
            unknownAfter += b.BytesResidentUnknown;
            requested += b.BytesRequested;
            skipped += b.BytesSkipped;
            advised += b.HugePageAdvisedBytes;
            regionCount += b.RegionCount;
            threads = Math.Max(threads, b.Threads);
            elapsed += b.Elapsed;
            failures.AddRange(b.Failures);
            ran = b.HasRun ? b : ran;
        }

        PrefaultResult last = batches[^1];
        return new PrefaultResult
        {
            HasRun = ran is not null,
            IsPartial = !last.IsCanceled && ran is not null && StopsTheRest(last),
            IsCanceled = last.IsCanceled,
            Reason = StopsTheRest(last) && unreached > 0 ? $"{last.Reason}; the files after batch {batches.Count} left untouched" : (ran ?? last).Reason,
            Bytes = bytes,
            BytesAlreadyResident = resident,
            BytesAlreadyResidentUnknown = unknown,
            BytesResident = residentAfter,
            BytesResidentUnknown = unknownAfter,
            BytesRequested = requested + unreached,
            BytesSkipped = skipped + unreached,
            Elapsed = elapsed,
            Method = (ran ?? last).Method,
            Failures = failures,
            RegionCount = regionCount,
            Threads = threads,
            HugePageAdvisedBytes = advised,
        };
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
        using var progress = new ProgressBar(context.Err, context.ErrIsTerminal, files);
        return Prefault(context, regions, gate, progress, cancellationToken);
    }

    private static PrefaultResult Prefault(
        CliContext context, List<PrefaultRegion> regions, RamGate gate, IProgress<PrefaultProgress> progress, CancellationToken cancellationToken)
    {
        PrefaultResult result = MmapPrefault.Run(regions, new PrefaultOptions
        {
            Label = CliApp.Name,
            RamGate = gate,
            Progress = progress,
            Logger = context.Logger,
        }, cancellationToken);

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
            BytesResidentAfter = result.BytesResident,
            BytesAlreadyResidentUnknown = result.BytesAlreadyResidentUnknown,
            BytesResidentAfterUnknown = result.BytesResidentUnknown,
        };

    /// <summary>The first target whose file is shorter now than when it was planned (or gone); null where none is.</summary>
    private static string? FirstThatShrank(List<FileTarget> targets)
    {
        foreach (FileTarget target in targets)
        {
            try
            {
                var now = new FileInfo(target.FullPath);
                if (!now.Exists || now.Length < target.Length)
                {
                    return target.DisplayPath;
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                return target.DisplayPath;
            }
        }

        return null;
    }

    private static void WriteText(TextWriter output, PrefaultResult result, int fileCount, long shortfall, bool fileShrank)
    {
        if (!result.HasRun)
        {
            // A signal before the sweep began: "cancelled:" first, as for a sweep it cut short.
            string reason = SafeText.Escape(result.Reason);
            output.WriteLine(result.IsCanceled
                ? $"cancelled: touched nothing; {reason}"
                : reason.StartsWith("nothing", StringComparison.Ordinal) ? reason : $"not prefaulted: {reason}");
            return;
        }

        // What was not done comes first, on a line of its own, so neither a reader nor `head -1` can take a partial run
        // for a whole one; every line stays within 100 columns.
        string? lead = result.IsCanceled
            ? string.Create(CultureInfo.InvariantCulture, $"cancelled: touched {Sizes.Format(result.Bytes)}, {Sizes.Format(result.BytesSkipped)} of {Sizes.Format(result.BytesRequested)} not done")
            : result.IsPartial
                ? string.Create(CultureInfo.InvariantCulture, $"partial: the RAM gate left {Sizes.Format(result.BytesSkipped)} of {Sizes.Format(result.BytesRequested)} untouched")
                : shortfall > 0
                    ? string.Create(CultureInfo.InvariantCulture, $"not all resident after: {Sizes.Format(shortfall)} of {Sizes.Format(result.Bytes)} {(fileShrank ? "left with a file that shrank" : "was reclaimed as it came in")}")
                    : null;
        if (lead is not null)
        {
            output.WriteLine(lead);
        }

        string unknownBefore = result.BytesAlreadyResidentUnknown > 0 ? $" ({Sizes.Format(result.BytesAlreadyResidentUnknown)} of unknown residency)" : string.Empty;
        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"touched {fileCount} file(s): {Sizes.Format(result.Bytes)} in {result.Elapsed.TotalSeconds:0.000} s ({result.GiBPerSecond:0.00} GiB/s), {Sizes.Format(result.BytesAlreadyResident)} already resident{unknownBefore}"));
        output.WriteLine($"method {PrefaultMethodNames.Of(result.Method)}, {ThreadsInWords(result.Threads)}");
        output.WriteLine($"reason: {SafeText.Escape(result.Reason)}");
        string unknownAfter = result.BytesResidentUnknown > 0 ? $" ({Sizes.Format(result.BytesResidentUnknown)} of unknown residency)" : string.Empty;
        output.WriteLine($"resident after: {Sizes.Format(result.BytesResident)} of {Sizes.Format(result.BytesRequested)}{unknownAfter}");
    }

    /// <summary>
    /// The sweep's threads, and why there are more than cores when there are: the library's default is at least 8, as a
    /// sweep mostly waits on the disk (see docs/cli.md, touch).
    /// </summary>
    internal static string ThreadsInWords(int threads) =>
        threads > Environment.ProcessorCount
            ? string.Create(CultureInfo.InvariantCulture, $"{threads} threads: the I/O-bound default, at least 8 whatever the cores ({Environment.ProcessorCount} here)")
            : string.Create(CultureInfo.InvariantCulture, $"{threads} thread{(threads == 1 ? string.Empty : "s")}");

    /// <summary>What the command line asks of a target, before it is mapped: the whole file, or its selected tensors.</summary>
    private static TouchFileJson Planned(FileTarget target, TensorFilter filter)
    {
        if (!filter.NamesTensors || target.Tensors is null)
        {
            return new TouchFileJson(target.DisplayPath, target.Length, null);
        }

        long bytes = 0;
        foreach (TensorInfo tensor in target.Tensors)
        {
            bytes += tensor.Length;
        }

        return new TouchFileJson(target.DisplayPath, bytes, target.Tensors.Count);
    }

    /// <summary>
    /// A batch's progress on the one bar of the whole run: offset by the bytes of the batches before it, out of
    /// <paramref name="total"/> (or, for the last batch, -1, out of what it sweeps).
    /// </summary>
    private sealed class BatchProgress(ProgressBar bar, long before, long total) : IProgress<PrefaultProgress>
    {
        public void Report(PrefaultProgress value) =>
            bar.Report(new PrefaultProgress(before + value.BytesDone, total >= 0 ? Math.Max(total, before + value.BytesDone) : before + value.BytesTotal, value.Label));
    }

    /// <summary>Adds the bytes of the target's selection that were resident before the tool read the file; false where some residency was unknown.</summary>
    private static bool AddResidentBefore(ResidentPages pages, FileTarget target, TensorFilter filter, ref long total)
    {
        if (!target.UsesTensorRanges(filter))
        {
            total += pages.ResidentBytes(0, target.Length);
            return pages.UnknownBytes(0, target.Length) == 0;
        }

        bool known = true;
        foreach (FileByteRange range in target.TensorRanges())
        {
            total += pages.ResidentBytes(range.Offset, range.Length);
            known &= pages.UnknownBytes(range.Offset, range.Length) == 0;
        }

        return known;
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
