namespace Sharpi.Prefault.Cli.Commands;

/// <summary><c>tensors</c>: the tensor table of a model, in file order.</summary>
internal static class TensorsCommand
{
    public static Command Create()
    {
        var file = new Argument<string>("FILE") { Description = "A GGUF or safetensors model, or a sharded model's index (model.safetensors.index.json)." };
        file.Validators.Add(CommonOptions.RejectUnknownOptions);
        Option<bool> json = CommonOptions.Json();
        var command = new Command("tensors", "List a model's tensors: name, absolute data offset, length, dtype and shape.") { file, json };
        command.SetAction(parse => Run(CliContext.From(parse), parse.GetRequiredValue(file), parse.GetValue(json)));
        return command;
    }

    private static int Run(CliContext context, string path, bool json)
    {
        List<FileTarget> targets = PathCheck.Of(path).Kind == FileKind.Directory
            ? Refuse(context, path, "is a directory; name a model file or a sharded model's index.")
            : Targets.Resolve(context, [path], new TensorFilter([], []), readModels: true, requireModels: true);
        if (targets.Count > 0 && !targets[0].IsModel)
        {
            context.Fail(path, "not a GGUF or safetensors model.");
        }
        else if (targets.Count > 0 && targets[0].Index!.Tensors.Count == 0)
        {
            // An index with an empty weight_map (or a header with no tensors) describes no model to list.
            context.Fail(path, "lists no tensors.");
        }

        if (context.FailureCount > 0 || targets.Count == 0)
        {
            if (json)
            {
                CliJsonContext.Write(context.Out, new ErrorJson(context.Failures), CliJsonContext.Output.ErrorJson);
            }

            return ExitCodes.Partial;
        }

        TensorIndex index = targets[0].Index!;
        bool sharded = index.Files.Count > 1;
        if (json)
        {
            TensorsJson.Write(context.Out, index);
            return context.ExitCode;
        }

        WriteTable(context.Out, index, sharded);
        return context.ExitCode;
    }

    private static List<FileTarget> Refuse(CliContext context, string path, string reason)
    {
        context.Fail(path, reason);
        return [];
    }

    private static void WriteTable(TextWriter output, TensorIndex index, bool sharded)
    {
        int nameWidth = 4;
        foreach (TensorInfo t in index.Tensors)
        {
            nameWidth = Math.Max(nameWidth, SafeText.Escape(t.Name).Length);
        }

        output.WriteLine($"{"OFFSET",14} {"LENGTH",14} {"DTYPE",-8} {"SHAPE",-24} {"NAME".PadRight(nameWidth)}{(sharded ? " FILE" : string.Empty)}");
        long total = 0;
        foreach (TensorInfo t in index.Tensors)
        {
            string shape = "[" + string.Join(", ", t.Shape.Select(d => d.ToString(CultureInfo.InvariantCulture))) + "]";
            string file = sharded ? " " + Path.GetFileName(t.FilePath) : string.Empty;
            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{t.Offset,14} {t.Length,14} {SafeText.Escape(t.DType),-8} {shape,-24} {SafeText.Escape(t.Name).PadRight(nameWidth)}{SafeText.Escape(file)}"));
            total += t.Length;
        }

        output.WriteLine($"{index.Tensors.Count} tensor(s), {Sizes.Format(total)} of data, format {index.Format}");
    }
}
