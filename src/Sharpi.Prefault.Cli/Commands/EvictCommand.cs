using System.CommandLine;
using Sharpi.Prefault.Cli.Files;
using Sharpi.Prefault.Cli.Output;

namespace Sharpi.Prefault.Cli.Commands;

/// <summary><c>evict</c>: drop files (or the selected tensors' byte ranges) from the page cache, for cold-start tests.</summary>
internal static class EvictCommand
{
    public static Command Create()
    {
        Argument<string[]> files = CommonOptions.Files();
        Option<string[]> tensor = CommonOptions.Tensor();
        Option<string[]> exclude = CommonOptions.Exclude();
        Option<bool> recursive = CommonOptions.Recursive();
        Option<bool> json = CommonOptions.Json();
        var command = new Command("evict", "Drop FILEs (or the selected tensors) from the page cache, without root. Linux only.")
        {
            files, tensor, exclude, recursive, json,
        };
        command.SetAction(parse => Run(
            CliContext.From(parse), parse.GetRequiredValue(files), CommonOptions.Filter(parse, tensor, exclude), parse.GetValue(recursive), parse.GetValue(json)));
        return command;
    }

    private static int Run(CliContext context, string[] paths, TensorFilter filter, bool recursive, bool json)
    {
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
                long dropped = Evict(target, filter, out int ranges);
                ResidencyInfo after = Residency.OfFile(target.FullPath);
                report.Add(new EvictFileJson(target.DisplayPath, target.Length, dropped, ranges, after.ResidentBytes));
                if (!json)
                {
                    context.Out.WriteLine(
                        $"{SafeText.Escape(target.DisplayPath)}: evicted {Sizes.Format(dropped)} in {ranges} range(s); {Sizes.Format(after.ResidentBytes)} of {Sizes.Format(after.Bytes)} still resident");
                }

                if (after.ResidentBytes > 0 && !filter.NamesTensors)
                {
                    context.Note(target.DisplayPath, "pages still resident are mapped by a live process or dirty; the kernel keeps those.");
                }
            }
            catch (Exception e) when (FileErrors.IsExpected(e))
            {
                context.Fail(target.DisplayPath, FileErrors.Describe(e));
            }
        }

        WriteJson(context, json, report);
        return context.ExitCode;
    }

    private static void WriteJson(CliContext context, bool json, List<EvictFileJson> report)
    {
        if (json)
        {
            CliJsonContext.Write(context.Out, new EvictJson(report), CliJsonContext.Output.EvictJson);
        }
    }

    private static long Evict(FileTarget target, TensorFilter filter, out int ranges)
    {
        if (!OperatingSystem.IsLinux())
        {
            throw new PlatformNotSupportedException("eviction needs Linux.");
        }

        if (!filter.NamesTensors || !target.IsModel)
        {
            PageCache.Evict(target.FullPath);
            ranges = 1;
            return target.Length;
        }

        // Only whole pages inside a range drop: a page shared with a neighbouring tensor stays.
        long bytes = 0;
        ranges = 0;
        foreach (FileByteRange range in target.TensorRanges())
        {
            PageCache.Evict(target.FullPath, range.Offset, range.Length);
            bytes += range.Length;
            ranges++;
        }

        return bytes;
    }
}
