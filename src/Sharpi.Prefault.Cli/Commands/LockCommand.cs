namespace Sharpi.Prefault.Cli.Commands;

/// <summary>
/// <c>lock</c>: prefault, then hold the pages locked until interrupted, like <c>vmtouch -l</c>: keeps a model hot
/// through page-cache pressure from other processes while an engine (mapping the same file) serves.
/// </summary>
internal static class LockCommand
{
    public static Command Create()
    {
        var selection = new FileSelectionOptions();
        var pidFile = new Option<FileInfo?>("--pidfile")
        {
            Description = "Write the process id to PATH once the pages are locked (like vmtouch -P), creating it exclusively (a running lock's pid file is refused); removed on exit if it is still the file written.",
            HelpName = "PATH",
        };
        Command command = selection.CreateCommand(
            "lock", "Prefault FILEs (or the selected tensors) and hold their pages locked in memory until Ctrl+C or SIGTERM.", endsOnSignal: true, pidFile);

        // The token is cancelled on SIGINT and SIGTERM (Program's Interruption): the signal to unlock and exit.
        command.SetAction((parse, cancellationToken) => RunAsync(
            CliContext.From(parse),
            selection.Read(parse),
            parse.GetValue(pidFile)?.FullName,
            cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(
        CliContext context, FileSelection selection, string? pidFile, CancellationToken cancellationToken)
    {
        (string[] paths, TensorFilter filter, bool recursive, bool json) = selection;
        if (CliContext.KillSwitchIsOn(out string reason))
        {
            context.Note("nothing locked", $"{reason}; the kill switch wins over lock too.");
            return WriteJson(context, json, null, 0, false);
        }

        // A pid file a live lock holds, or a path that is not a pid file at all, is refused before anything is locked.
        if (pidFile is not null && PidFile.WhyNotClaimable(pidFile) is string taken)
        {
            context.Fail(pidFile, $"cannot be this lock's pid file: {taken}");
            return WriteJson(context, json, null, 0, false);
        }

        List<FileTarget> targets = Targets.Resolve(context, paths, filter, readModels: false, recursive);
        using FileMappings mappings = FileMappings.Open(context, targets);
        var regions = new List<PrefaultRegion>();
        var files = new List<(string Name, long Bytes)>();
        long requested = 0;
        foreach (FileMapping mapping in mappings.Items)
        {
            List<PrefaultRegion> fileRegions = mapping.Regions(tensorsOnly: filter.NamesTensors);
            regions.AddRange(fileRegions);
            long bytes = fileRegions.Sum(r => r.Length);
            files.Add((mapping.Target.DisplayPath, bytes));
            requested += bytes;
        }

        if (requested == 0)
        {
            // An empty file, or tensors that are all empty: holding nothing until Ctrl+C would only look like success.
            context.Fail(targets.Count == 0 ? "lock" : string.Join(", ", targets.Select(t => t.DisplayPath)), "nothing to lock (no bytes selected).");
            return WriteJson(context, json, null, 0, false);
        }

        // Prefault first, in parallel: mlock would fault the pages in one by one on this thread.
        PrefaultResult prefault = TouchCommand.Prefault(context, regions, files, RamGate.Always, cancellationToken);
        if (prefault.IsCanceled || cancellationToken.IsCancellationRequested)
        {
            await context.Err.WriteLineAsync($"{CliApp.Name}: interrupted while prefaulting; nothing locked.").ConfigureAwait(false);
            WriteJson(context, json, null, requested, false);
            return ExitCodes.Interrupted;
        }

        using LockLease lease = MmapLock.Lock(regions, new LockOptions { Label = CliApp.Name, Logger = context.Logger });
        foreach (RegionFailure failure in lease.Failures)
        {
            context.Fail(failure.Name, failure.Message);
        }

        if (lease.LockedBytes == 0)
        {
            await context.Err.WriteLineAsync($"{CliApp.Name}: nothing locked.").ConfigureAwait(false);
            WriteJson(context, json, lease, requested, false);
            return ExitCodes.Partial;
        }

        // mlock works in whole pages: a selection that ends mid-page locks the whole page. Said apart, so that what was
        // locked is never more than what was asked for, and the pages (what VmLck counts) are still named.
        long locked = SelectedBytesLocked(regions, lease);
        string holes = string.Empty;
        if (locked > lease.LockedBytes + lease.AlreadyLockedBytes)
        {
            // More selected than pages locked: the lease left the holes of sparse files out (they hold nothing to lock).
            locked = lease.LockedBytes + lease.AlreadyLockedBytes;
            holes = "; the rest is holes of sparse files, nothing to lock";
        }

        string pages = lease.LockedBytes == locked ? string.Empty : $" ({Sizes.Format(lease.LockedBytes)} in whole pages)";
        string holding = $"locked {Sizes.Format(locked)} of {Sizes.Format(requested)}{pages} in {mappings.Items.Count} file(s){holes}; holding until {HowToStop()}";
        TextWriter status = json ? context.Err : context.Out; // with --json, stdout carries the one JSON document only
        PidFile? claimed = null;
        try
        {
            // Written once the pages are locked, exclusively: a lock that started meanwhile with the same path wins it.
            if (pidFile is not null && (claimed = PidFile.Claim(pidFile, out string? refusal)) is null)
            {
                context.Fail(pidFile, $"cannot be this lock's pid file: {refusal} Unlocked.");
                return WriteJson(context, json, lease, requested, false, locked);
            }

            await status.WriteLineAsync(holding).ConfigureAwait(false);
            await status.FlushAsync(CancellationToken.None).ConfigureAwait(false);
            try
            {
                await Task.Delay(Timeout.Infinite, cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                // The expected way out: Ctrl+C or SIGTERM.
            }

            lease.Dispose();
            if (!json)
            {
                await context.Out.WriteLineAsync($"unlocked {Sizes.Format(locked)}").ConfigureAwait(false);
                await context.Out.FlushAsync(CancellationToken.None).ConfigureAwait(false);
            }

            return WriteJson(context, json, lease, requested, unlocked: true, locked);
        }
        finally
        {
            // Removed only while it is still the file this process wrote, holding its id: never someone else's.
            if (claimed is not null && !claimed.Release(out string? leftBecause) && leftBecause is not null)
            {
                context.Note(claimed.Path, leftBecause);
            }
        }
    }

    /// <summary>How this lock ends: Ctrl+C in the foreground, SIGTERM always; a lock started with SIGINT ignored says so.</summary>
    private static string HowToStop()
    {
        string pid = Environment.ProcessId.ToString(CultureInfo.InvariantCulture);
        return Interruption.IsSigintIgnored()
            ? $"SIGTERM (kill {pid}); SIGINT and Ctrl+C are ignored, as in a script's background job"
            : $"Ctrl+C or SIGTERM (kill {pid})";
    }

    private static int WriteJson(CliContext context, bool json, LockLease? lease, long requested, bool unlocked, long locked = 0)
    {
        if (json)
        {
            // Every failure reported (a missing file as well as a refused range: the lease's failures were reported too).
            // The lease's figures stay readable after it is disposed: they say what it held.
            var document = new LockJson(locked, requested, lease?.LockedBytes ?? 0, unlocked, [.. context.Failures]);
            CliJsonContext.Write(context.Out, document, CliJsonContext.Output.LockJson);
        }

        return context.ExitCode;
    }

    /// <summary>
    /// The bytes of the selection inside the pages the lease locked: the selection less what its failures left out
    /// (refused, past the RAM gate, no room under vm.max_map_count). Never more than the selection, where the lease's
    /// <see cref="LockLease.LockedBytes"/> counts whole pages.
    /// </summary>
    internal static long SelectedBytesLocked(IReadOnlyList<PrefaultRegion> regions, LockLease lease)
    {
        if (lease.LockedBytes == 0)
        {
            return 0;
        }

        // The failures' ranges, sorted and merged, so a byte left out twice is counted once.
        var notLocked = lease.Failures.Select(f => (Start: (ulong)f.Address, End: (ulong)f.Address + (ulong)f.Length))
            .Where(r => r.End > r.Start).OrderBy(r => r.Start).ToList();
        var merged = new List<(ulong Start, ulong End)>(notLocked.Count);
        foreach ((ulong start, ulong end) in notLocked)
        {
            if (merged.Count > 0 && start <= merged[^1].End)
            {
                merged[^1] = (merged[^1].Start, Math.Max(merged[^1].End, end));
            }
            else
            {
                merged.Add((start, end));
            }
        }

        // One pass over the regions in address order (a file's tensors never overlap; files are mapped apart).
        long locked = 0;
        int first = 0;
        foreach (PrefaultRegion region in regions.OrderBy(r => (ulong)r.Address))
        {
            ulong start = (ulong)region.Address;
            ulong end = start + (ulong)region.Length;
            while (first < merged.Count && merged[first].End <= start)
            {
                first++;
            }

            ulong left = 0;
            for (int i = first; i < merged.Count && merged[i].Start < end; i++)
            {
                left += Math.Min(end, merged[i].End) - Math.Max(start, merged[i].Start);
            }

            locked += region.Length - (long)left;
        }

        return locked;
    }
}
