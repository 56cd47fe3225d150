using System.Diagnostics;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// A fact that locks <c>Bytes</c> of memory and runs a second process in a pid namespace of its own
/// (<c>unshare -p -f --mount-proc</c>): skipped, with the reason, where locking is not allowed or unshare is missing or
/// not permitted (no CAP_SYS_ADMIN, user namespaces off).
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class PidNamespaceFactAttribute : FactAttribute
{
    private static readonly Lazy<string?> WhyNoUnshare = new(Probe);

    public PidNamespaceFactAttribute(long bytes)
    {
        Skip = LockableFactAttribute.WhyNotLockable(bytes) ?? WhyNoUnshare.Value;
    }

    private static string? Probe()
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
