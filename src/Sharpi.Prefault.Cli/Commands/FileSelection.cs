namespace Sharpi.Prefault.Cli.Commands;

/// <summary>What one command line selected: the FILE paths, the tensor patterns, whether directories recurse, and --json.</summary>
internal sealed record FileSelection(string[] Paths, TensorFilter Filter, bool Recursive, bool Json);
