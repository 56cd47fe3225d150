namespace Sharpi.Prefault.Cli.Commands;

/// <summary><c>resident</c>: page-cache residency per file and per tensor, like <c>fincore</c> but tensor-aware.</summary>
internal static class ResidentCommand
{
    public static Command Create()
    {
        var selection = new FileSelectionOptions();
        Option<double?> min = MinPercent();
        Command command = selection.CreateCommand(
            "resident", "Show how much of each FILE (and of each tensor of a model) is in the page cache. Touches no page.", endsOnSignal: false, min);
        command.SetAction(parse => parse.GetValue(min) is double minPercent
            ? ResidentProbe.Run(CliContext.From(parse), selection.Read(parse), minPercent)
            : Run(CliContext.From(parse), selection.Read(parse)));
        return command;
    }

    /// <summary><c>--min PERCENT</c> (<c>90</c>, <c>99.5</c>, <c>90%</c>): a number from 0 to 100, or a usage error.</summary>
    private static Option<double?> MinPercent() => new("--min")
    {
        Description = "A readiness probe: exit 0 when every FILE (with --tensor: its selected tensors) is at least PERCENT resident, 1 otherwise, with one line naming those that are not.",
        HelpName = "PERCENT",
        CustomParser = result =>
        {
            string text = result.Tokens.Count == 1 ? result.Tokens[0].Value.Trim() : string.Empty;
            if (double.TryParse(text.TrimEnd('%'), System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out double value)
                && value >= 0 && value <= 100)
            {
                return value;
            }

            result.AddError($"--min needs a percentage from 0 to 100 (90, 99.5 or 90%), not '{text}'.");
            return null;
        },
    };

    private static int Run(CliContext context, FileSelection selection)
    {
        (string[] paths, TensorFilter filter, bool recursive, bool json) = selection;
        if (!Residency.IsSupported)
        {
            context.Fail("resident", "this platform has no page-residency query (mincore); Linux and macOS have one.");
            WriteJson(context, json, []);
            return context.ExitCode;
        }

        // Reading a model's header brings its pages (and maybe read-ahead around them) into the cache: each file is
        // measured before anything is read from it, and reported from that measurement.
        var before = new ResidencySnapshot();
        List<FileTarget> targets = Targets.Resolve(context, paths, filter, readModels: true, recursive, before.Take);
        var report = new List<ResidentFileJson>(targets.Count);
        foreach (FileTarget target in targets)
        {
            // One file mapped at a time: measuring reads the process's mappings, and thousands of them at once made
            // each measurement slower than the last.
            try
            {
                using FileMapping mapping = FileMapping.Open(target);
                ResidentFileJson file = Report(mapping, before.Of(mapping));
                report.Add(file);
                if (file.UnknownBytes > 0)
                {
                    // A measurement the kernel would not give is a failure, never a figure of 0% or 100%.
                    context.Fail(target.DisplayPath, UnknownResidency.Why);
                }
            }
            catch (Exception e) when (FileErrors.IsExpected(e))
            {
                context.Fail(target.DisplayPath, FileErrors.Describe(e));
            }
        }

        // No file measured (each failure named on stderr): no table either, rather than a header over nothing.
        if (!WriteJson(context, json, report) && report.Count > 0)
        {
            WriteText(context.Out, report);
        }

        return context.ExitCode;
    }

    /// <summary>The whole file and each selected tensor, from the file's pages as they were before it was read.</summary>
    private static ResidentFileJson Report(FileMapping mapping, ResidentPages pages)
    {
        FileTarget target = mapping.Target;
        IReadOnlyList<TensorInfo> tensorInfos = target.Tensors ?? [];
        var tensors = new List<ResidentTensorJson>(tensorInfos.Count);
        foreach (TensorInfo tensor in tensorInfos)
        {
            tensors.Add(new ResidentTensorJson(tensor.Name, tensor.Length, pages.ResidentBytes(tensor.Offset, tensor.Length))
            {
                UnknownBytes = pages.UnknownBytes(tensor.Offset, tensor.Length),
            });
        }

        long wholeResident = pages.ResidentBytes(0, target.Length);
        return new ResidentFileJson(target.DisplayPath, target.Length, wholeResident, tensors)
        {
            Pages = PageCount(target.Length),
            ResidentPages = PageCount(wholeResident),
            UnknownBytes = pages.UnknownBytes(0, target.Length),
        };
    }

    private static bool WriteJson(CliContext context, bool json, List<ResidentFileJson> report)
    {
        if (json)
        {
            CliJsonContext.Write(context.Out, new ResidentJson(report), CliJsonContext.Output.ResidentJson);
        }

        return json;
    }

    /// <summary>Pages as fincore counts them: the last, partial page of a file is a page.</summary>
    internal static long PageCount(long bytes) => (bytes + Environment.SystemPageSize - 1) / Environment.SystemPageSize;

    private static void WriteText(TextWriter output, List<ResidentFileJson> report)
    {
        // PAGES is fincore's column: resident pages (of the system page size).
        output.WriteLine($"{"RESIDENT",12} {"PAGES",10} {"SIZE",12} {"%",6}  FILE");
        foreach (ResidentFileJson file in report)
        {
            output.WriteLine($"{Figures(file.ResidentBytes, file.UnknownBytes, file.Bytes)}  {SafeText.Escape(file.File)}");
            foreach (Group group in Summarize(file.Tensors))
            {
                output.WriteLine($"{Figures(group.ResidentBytes, group.UnknownBytes, group.Bytes)}    {SafeText.Escape(group.Key)} ({group.Count} tensor{(group.Count == 1 ? string.Empty : "s")})");
            }
        }
    }

    /// <summary>The RESIDENT, PAGES, SIZE and % columns; where the kernel would not tell, "unknown" rather than a figure.</summary>
    private static string Figures(long resident, long unknown, long bytes) => unknown > 0
        ? $"{"unknown",12} {"?",10} {Sizes.Format(bytes),12} {"?",6}"
        : $"{Sizes.Format(resident),12} {PageCount(resident),10} {Sizes.Format(bytes),12} {Percentage.Percent(resident, bytes)}";

    /// <summary>Sums tensors by <see cref="TensorIndex.GroupKey"/> (the layer), in order of first appearance.</summary>
    private static List<Group> Summarize(IReadOnlyList<ResidentTensorJson> tensors)
    {
        var groups = new List<Group>();
        var byKey = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (ResidentTensorJson tensor in tensors)
        {
            string key = TensorIndex.GroupKey(tensor.Name);
            if (!byKey.TryGetValue(key, out int at))
            {
                byKey[key] = at = groups.Count;
                groups.Add(new Group(key, 0, 0, 0, 0));
            }

            Group g = groups[at];
            groups[at] = g with
            {
                Count = g.Count + 1,
                Bytes = g.Bytes + tensor.Bytes,
                ResidentBytes = g.ResidentBytes + tensor.ResidentBytes,
                UnknownBytes = g.UnknownBytes + tensor.UnknownBytes,
            };
        }

        return groups;
    }

    private sealed record Group(string Key, int Count, long Bytes, long ResidentBytes, long UnknownBytes);
}
