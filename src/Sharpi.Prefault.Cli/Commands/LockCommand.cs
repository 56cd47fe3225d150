using System.CommandLine;

namespace Sharpi.Prefault.Cli.Commands;

internal static class LockCommand
{
    public static Command Create() => new("lock", "Prefault FILEs and hold their pages locked in memory until interrupted (Ctrl+C, SIGTERM).");
}
