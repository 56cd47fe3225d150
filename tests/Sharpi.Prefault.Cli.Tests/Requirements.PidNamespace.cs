using System.Diagnostics;

namespace Sharpi.Prefault.Tests.TestSupport;

public static partial class Requirements
{
    private static readonly Lazy<string?> WhyNoUnshare = new(ProbeUnshare);

    /// <summary>
    /// A second process in a pid namespace of its own (<c>unshare -p -f --mount-proc</c>): unshare on the PATH and
    /// permitted (CAP_SYS_ADMIN, or user namespaces on).
    /// </summary>
    public static string? PidNamespace => WhyNoUnshare.Value;

    private static string? ProbeUnshare()
    {
        try
        {
            var start = new ProcessStartInfo("unshare", ["-p", "-f", "--mount-proc", "true"])
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            };
            using Process process = Process.Start(start)!;
            string error = process.StandardError.ReadToEnd();
            if (!process.WaitForExit(10_000))
            {
                process.Kill();
                return "unshare -p -f --mount-proc true did not end in 10 s";
            }

            return process.ExitCode == 0 ? null : $"unshare -p -f --mount-proc is not permitted here (exit {process.ExitCode}: {error.Trim()})";
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            return $"needs unshare(1) (util-linux) on the PATH: {e.Message}";
        }
    }
}
