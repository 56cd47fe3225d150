using System.CommandLine.Parsing;

namespace Sharpi.Prefault.Cli.Commands;

/// <summary>The arguments and options several commands share, spelled and described once.</summary>
internal static class CommonOptions
{
    public static Argument<string[]> Files()
    {
        var files = new Argument<string[]>("FILE")
        {
            Description = "Files to work on: plain files, GGUF or safetensors models, or a sharded model's index (model.safetensors.index.json).",
            Arity = ArgumentArity.OneOrMore,
        };
        files.Validators.Add(RejectUnknownOptions);
        return files;
    }

    /// <summary>
    /// A misspelt option (<c>--jsn</c>) would otherwise be taken for a file name and fail as "no such file" (1, not 2).
    /// A path that exists is a path whatever its first character (a directory <c>-models</c> under <c>-r</c> too).
    /// </summary>
    public static void RejectUnknownOptions(ArgumentResult result)
    {
        foreach (Token token in result.Tokens)
        {
            if (token.Value.StartsWith('-') && token.Value.Length > 1 && !Path.Exists(token.Value))
            {
                result.AddError($"Unknown option '{token.Value}'.");
            }
        }
    }

    public static Option<string[]> Tensor() => Glob("--tensor", "-t",
        "Only the tensors whose name matches GLOB (* matches any run of characters, ? one character); repeatable.");

    public static Option<string[]> Exclude() => Glob("--exclude", "-x",
        "Leave out the tensors whose name matches GLOB; repeatable.");

    public static Option<bool> Recursive() =>
        new("--recursive", "-r") { Description = "A directory FILE stands for the regular files under it, recursively (like vmtouch and fincore on a directory)." };

    public static Option<bool> Json() => new("--json") { Description = "Write the result as JSON on stdout." };

    /// <summary><c>--gate always|fits</c>, <c>fits</c> by default: which RAM-fit gate a command's reads go through.</summary>
    public static Option<string> Gate(string description)
    {
        var gate = new Option<string>("--gate") { Description = description, DefaultValueFactory = _ => "fits" };
        gate.AcceptOnlyFromAmong("always", "fits");
        return gate;
    }

    public static RamGate GetGate(ParseResult parse, Option<string> gate) =>
        parse.GetValue(gate) == "always" ? RamGate.Always : RamGate.FitsInRam;

    /// <summary>The word <c>--gate</c> takes for <paramref name="gate"/>.</summary>
    public static string GateName(RamGate gate) => gate == RamGate.Always ? "always" : "fits";

    public static TensorFilter Filter(ParseResult parse, Option<string[]> tensor, Option<string[]>? exclude) =>
        new(parse.GetValue(tensor) ?? [], exclude is null ? [] : parse.GetValue(exclude) ?? []);

    private static Option<string[]> Glob(string name, string alias, string description)
    {
        var option = new Option<string[]>(name, alias) { Description = description, HelpName = "GLOB" };
        option.Validators.Add(result =>
        {
            foreach (string pattern in result.GetValueOrDefault<string[]>() ?? [])
            {
                if (string.IsNullOrEmpty(pattern))
                {
                    result.AddError($"{name} needs a non-empty pattern.");
                }
            }
        });
        return option;
    }
}

/// <summary>The <c>--tensor</c> and <c>--exclude</c> patterns of one command line.</summary>
internal sealed record TensorFilter(string[] Include, string[] Exclude)
{
    /// <summary>True when the user named tensors at all (so the files must be models).</summary>
    public bool NamesTensors => Include.Length > 0 || Exclude.Length > 0;

    public TensorSelection ToSelection() => NamesTensors ? new TensorSelection(Include, Exclude) : TensorSelection.All;
}
