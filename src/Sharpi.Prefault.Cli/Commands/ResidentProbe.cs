namespace Sharpi.Prefault.Cli.Commands;

/// <summary>
/// <c>resident --min PERCENT</c>: a readiness probe, exit 0 when every file (or its selected tensors) is at least PERCENT
/// resident, 1 otherwise.
/// </summary>
internal static class ResidentProbe
{
    public static int Run(CliContext context, FileSelection selection, double minPercent)
    {
        (string[] paths, TensorFilter filter, bool recursive, bool json) = selection;
        var files = new List<ResidentProbeFileJson>();
        if (!Residency.IsSupported)
        {
            context.Fail("resident", "this platform has no page-residency query (mincore); Linux and macOS have one.");
            return Report(context, json, minPercent, files);
        }

        var totals = new ResidentTotals();
        var pages = new ResidencySnapshot();
        List<FileTarget> targets = Targets.Resolve(
            context, paths, filter, readModels: filter.NamesTensors, recursive, filter.NamesTensors ? pages.Take : totals.Take);
        foreach (FileTarget target in targets)
        {
            try
            {
                (long bytes, FileResidency residency) = target.UsesTensorRanges(filter) ? Selected(target, pages) : (target.Length, totals.Of(target));
                long resident = residency.Resident;
                bool met = Meets(resident, bytes, minPercent);
                files.Add(new ResidentProbeFileJson(target.DisplayPath, bytes, resident, bytes == 0 ? 100 : 100.0 * resident / bytes, met)
                {
                    UnknownBytes = residency.Unknown,
                });
                if (!met && residency.Unknown > 0)
                {
                    // What is known falls short and the kernel will not tell the rest: not warm, and why, never a guess.
                    context.Fail(target.DisplayPath, UnknownResidency.Why);
                }
            }
            catch (Exception e) when (FileErrors.IsExpected(e))
            {
                context.Fail(target.DisplayPath, FileErrors.Describe(e));
            }
        }

        return Report(context, json, minPercent, files);
    }

    /// <summary>True when at least <paramref name="minPercent"/> of <paramref name="bytes"/> is resident; nothing to hold meets any minimum.</summary>
    internal static bool Meets(long resident, long bytes, double minPercent) => bytes == 0 || resident * 100.0 >= minPercent * bytes;

    /// <summary>The selected tensors' bytes in the file, and those that were resident (or unknown) before the header was read.</summary>
    private static (long Bytes, FileResidency Residency) Selected(FileTarget target, ResidencySnapshot snapshot)
    {
        using FileMapping mapping = FileMapping.Open(target);
        ResidentPages pages = snapshot.Of(mapping);
        long bytes = 0, resident = 0, unknown = 0;
        foreach (TensorInfo tensor in target.Tensors ?? [])
        {
            bytes += tensor.Length;
            resident += pages.ResidentBytes(tensor.Offset, tensor.Length);
            unknown += pages.UnknownBytes(tensor.Offset, tensor.Length);
        }

        return (bytes, new FileResidency(resident, unknown));
    }

    private static int Report(CliContext context, bool json, double minPercent, List<ResidentProbeFileJson> files)
    {
        bool met = context.FailureCount == 0 && files.TrueForAll(f => f.Met);
        if (json)
        {
            CliJsonContext.Write(context.Out, new ResidentProbeJson(minPercent, met, files, [.. context.Failures]), CliJsonContext.Output.ResidentProbeJson);
        }
        else
        {
            context.Out.WriteLine(Verdict(context, minPercent, files, met));
        }

        return met ? ExitCodes.Success : ExitCodes.Partial;
    }

    /// <summary>One line: <c>warm: ...</c>, or <c>not warm (--min P%): FILE P%, ...</c> naming each file that fell short.</summary>
    private static string Verdict(CliContext context, double minPercent, List<ResidentProbeFileJson> files, bool met)
    {
        string min = minPercent.ToString("0.###", CultureInfo.InvariantCulture);
        if (met)
        {
            ResidentProbeFileJson? lowest = files.Count == 0 ? null : files.MinBy(f => f.Percent);
            return lowest is null
                ? $"warm: nothing to measure (--min {min}%)"
                : $"warm: {files.Count} file(s) at least {min}% resident (lowest {Format(lowest.Percent)}%: {SafeText.Escape(lowest.File)})";
        }

        var parts = files.Where(f => !f.Met).Select(f => $"{SafeText.Escape(f.File)} {Shortfall(f)}").ToList();
        if (context.FailureCount > 0)
        {
            parts.Add($"{context.FailureCount} error(s) above");
        }

        return $"not warm (--min {min}%): {string.Join(", ", parts)}";
    }

    /// <summary>A file's figure in the verdict: its percentage, or "unknown" where the kernel would not tell (what is known as a floor).</summary>
    private static string Shortfall(ResidentProbeFileJson file) =>
        file.UnknownBytes == 0 ? $"{Format(file.Percent)}%"
            : file.ResidentBytes > 0 ? $"at least {Format(file.Percent)}%, the rest unknown"
            : "unknown";

    /// <summary>Rounded down to 0.1: a file 99.96% resident reads 99.9%, never the 100.0% it did not reach.</summary>
    private static string Format(double percent) =>
        (Math.Floor(percent * 10) / 10).ToString("0.0", CultureInfo.InvariantCulture);
}
