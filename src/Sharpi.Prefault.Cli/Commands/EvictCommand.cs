namespace Sharpi.Prefault.Cli.Commands;

/// <summary><c>evict</c>: drop files (or the selected tensors' byte ranges) from the page cache, for cold-start tests.</summary>
internal static class EvictCommand
{
    public static Command Create()
    {
        var selection = new FileSelectionOptions();
        Command command = selection.CreateCommand("evict", "Drop FILEs (or the selected tensors) from the page cache, without root. Linux only.", endsOnSignal: false);
        command.SetAction(parse => Run(CliContext.From(parse), selection.Read(parse)));
        return command;
    }

    private static int Run(CliContext context, FileSelection selection)
    {
        (string[] paths, TensorFilter filter, bool recursive, bool json) = selection;
        var report = new List<EvictFileJson>();
        if (!PageCache.IsEvictSupported)
        {
            context.Fail("evict", "dropping pages from the page cache needs posix_fadvise(POSIX_FADV_DONTNEED), which only Linux honours.");
            WriteJson(context, json, report);
            return context.ExitCode;
        }

        foreach (FileTarget target in Targets.Resolve(context, paths, filter, readModels: false, recursive))
        {
            try
            {
                // What was asked (the file, or the selected tensors' ranges, touching tensors merged) is measured before
                // and after: the kernel drops only whole folios inside a range, so what was dropped is counted, not assumed.
                bool tensorsOnly = filter.NamesTensors && target.IsModel;
                List<FileByteRange> asked = tensorsOnly ? [.. target.TensorRanges()] : [new FileByteRange(target.FullPath, 0, target.Length)];
                FileResidency before = ResidentIn(asked);
                Evict(asked, tensorsOnly);
                FileResidency after = ResidentIn(asked);
                long askedBytes = asked.Sum(r => r.Length);
                long dropped = Math.Max(0, before.Resident - after.Resident);
                long unknown = Math.Max(before.Unknown, after.Unknown);
                report.Add(new EvictFileJson(target.DisplayPath, askedBytes, dropped, asked.Count, after.Resident) { UnknownBytes = unknown });
                if (unknown > 0)
                {
                    // The kernel dropped what it could (posix_fadvise needs only a reader) but will not tell this user how much.
                    if (!json)
                    {
                        context.Out.WriteLine(
                            $"{SafeText.Escape(target.DisplayPath)}: asked the kernel to drop {Sizes.Format(askedBytes)} in {asked.Count} range(s); what it dropped, and what stayed, is unknown");
                    }

                    context.Note(target.DisplayPath, UnknownResidency.Why);
                    continue;
                }

                if (!json)
                {
                    context.Out.WriteLine(
                        $"{SafeText.Escape(target.DisplayPath)}: evicted {Sizes.Format(dropped)} in {asked.Count} range(s); {Sizes.Format(after.Resident)} of {Sizes.Format(askedBytes)} still resident");
                }

                if (after.Resident > 0 && !filter.NamesTensors)
                {
                    context.Note(target.DisplayPath, InMemoryFileSystem(target.FullPath) is string fs
                        ? $"the file is on {fs}, which keeps its files in memory: the page cache is their only copy, so the kernel evicts none of it."
                        : "pages still resident are mapped by a live process or dirty; the kernel keeps those.");
                }
            }
            catch (ArgumentOutOfRangeException)
            {
                context.Fail(target.DisplayPath, "changed size while being evicted; run again once it is written.");
            }
            catch (Exception e) when (FileErrors.IsExpected(e))
            {
                context.Fail(target.DisplayPath, FileErrors.Describe(e));
            }
        }

        WriteJson(context, json, report);
        return context.ExitCode;
    }

    /// <summary>"tmpfs" or "ramfs" where the file is on one (its pages are the file itself: nothing can evict them); else null.</summary>
    private static string? InMemoryFileSystem(string path)
    {
        try
        {
            string format = new DriveInfo(path).DriveFormat;
            return format is "tmpfs" or "ramfs" ? format : null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException)
        {
            return null;
        }
    }

    private static void WriteJson(CliContext context, bool json, List<EvictFileJson> report)
    {
        if (json)
        {
            CliJsonContext.Write(context.Out, new EvictJson(report), CliJsonContext.Output.EvictJson);
        }
    }

    /// <summary>The resident bytes of the ranges, and those the kernel would not tell of (no page touched).</summary>
    private static FileResidency ResidentIn(List<FileByteRange> ranges)
    {
        long resident = 0, unknown = 0;
        foreach (FileByteRange range in ranges)
        {
            ResidencyInfo info = Residency.OfFile(range.FilePath, range.Offset, range.Length);
            resident += info.ResidentBytes;
            unknown += info.UnknownBytes;
        }

        return new FileResidency(resident, unknown);
    }

    private static void Evict(List<FileByteRange> ranges, bool tensorsOnly)
    {
        if (!OperatingSystem.IsLinux())
        {
            throw new PlatformNotSupportedException("eviction needs Linux.");
        }

        // Only whole pages inside a range drop: a page shared with a neighbouring tensor stays. A whole file is one
        // call over all of it (length 0: to the end), so pages past a length that grew since are dropped too.
        foreach (FileByteRange range in ranges)
        {
            PageCache.Evict(range.FilePath, range.Offset, tensorsOnly ? range.Length : 0);
        }
    }
}
