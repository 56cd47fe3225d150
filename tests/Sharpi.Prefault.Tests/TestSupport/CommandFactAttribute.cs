namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A fact that runs a program of the system (util-linux's <c>script</c> for a pseudo-terminal, <c>setpriv</c> to drop a
/// capability) on Linux: skipped, with the reason, where that program is not on the PATH.
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class CommandFactAttribute : FactAttribute
{
    public CommandFactAttribute(string command)
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = $"Linux only: runs {command}(1) and needs /proc.";
        }
        else if (!IsOnPath(command))
        {
            Skip = $"needs {command}(1) (util-linux) on the PATH, and there is none";
        }
    }

    private static bool IsOnPath(string command) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "/usr/bin:/bin")
            .Split(':', StringSplitOptions.RemoveEmptyEntries)
            .Any(directory => File.Exists(Path.Combine(directory, command)));
}
