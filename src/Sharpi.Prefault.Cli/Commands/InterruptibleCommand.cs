namespace Sharpi.Prefault.Cli.Commands;

/// <summary>
/// A command that ends its own way on SIGINT or SIGTERM: the token its action is given is cancelled, and it finishes
/// (touch prints what it did, lock unlocks, keep stops looking).
/// </summary>
internal sealed class InterruptibleCommand(string name, string? description = null) : Command(name, description);
