namespace Sharpi.Prefault.Cli.Commands;

/// <summary>
/// The file selection that <c>touch</c>, <c>resident</c>, <c>evict</c>, <c>lock</c> and <c>keep</c> share (FILEs,
/// <c>--tensor</c>, <c>--exclude</c>, <c>--recursive</c>, <c>--json</c>), declared once and read once, so each command
/// declares only what is its own.
/// </summary>
internal sealed class FileSelectionOptions
{
    private readonly Argument<string[]> _files = CommonOptions.Files();
    private readonly Option<string[]> _tensor = CommonOptions.Tensor();
    private readonly Option<string[]> _exclude = CommonOptions.Exclude();
    private readonly Option<bool> _recursive = CommonOptions.Recursive();
    private readonly Option<bool> _json = CommonOptions.Json();

    /// <summary>
    /// A command with the shared selection and <paramref name="own"/> options, in the order help lists them: FILE,
    /// --tensor, --exclude, --recursive, the command's own options, --json last. With <paramref name="endsOnSignal"/>
    /// it is an <see cref="InterruptibleCommand"/>: its action finishes its own way on SIGINT or SIGTERM.
    /// </summary>
    public Command CreateCommand(string name, string description, bool endsOnSignal, params Option[] own)
    {
        Command command = endsOnSignal ? new InterruptibleCommand(name, description) : new Command(name, description);
        command.Arguments.Add(_files);
        command.Options.Add(_tensor);
        command.Options.Add(_exclude);
        command.Options.Add(_recursive);
        foreach (Option option in own)
        {
            command.Options.Add(option);
        }

        command.Options.Add(_json);
        return command;
    }

    public FileSelection Read(ParseResult parse) =>
        new(parse.GetRequiredValue(_files), CommonOptions.Filter(parse, _tensor, _exclude), parse.GetValue(_recursive), parse.GetValue(_json));
}
