using System.Diagnostics;

namespace Sharpi.Prefault.Bench;

/// <summary>The system tools the bench calls (vmtouch, losetup, mount, mkfs.*): found on PATH, run with their output captured.</summary>
internal static class ExternalTool
{
    /// <summary>The full path of <paramref name="name"/> on PATH, or null where it is not installed.</summary>
    internal static string? Find(string name)
    {
        string[] directories = (Environment.GetEnvironmentVariable("PATH") ?? "/usr/sbin:/usr/bin:/sbin:/bin").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries);
        foreach (string directory in directories)
        {
            string candidate = Path.Combine(directory, name);
            if (File.Exists(candidate))
            {
                return candidate;
            }
        }

        return null;
    }

    /// <summary>Runs <paramref name="tool"/> and returns its standard output, or throws a <see cref="BenchException"/> with its error output.</summary>
    internal static string Run(string tool, params string[] arguments) =>
        TryRun(tool, out string output, out string error, arguments)
            ? output
            : throw new BenchException($"`{tool} {string.Join(' ', arguments)}` failed: {(error.Length > 0 ? error : output).Trim()}");

    /// <summary>Runs <paramref name="tool"/> (a name on PATH or a path); false, with its output, where it could not start or exited non-zero.</summary>
    internal static bool TryRun(string tool, out string output, out string error, params string[] arguments)
    {
        string? path = tool.Contains('/', StringComparison.Ordinal) ? tool : Find(tool);
        if (path is null)
        {
            output = string.Empty;
            error = $"{tool} is not installed";
            return false;
        }

        var start = new ProcessStartInfo(path, arguments)
        {
            UseShellExecute = false,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        using Process process = Process.Start(start) ?? throw new BenchException($"could not start {path}");
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        error = stderr.GetAwaiter().GetResult();
        return process.ExitCode == 0;
    }
}
