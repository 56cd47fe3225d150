using System.Diagnostics;

namespace Sharpi.Prefault.Tests.Reclaim;

/// <summary>
/// A swap file switched on for one test and switched off and deleted on dispose (Linux, root). Written with dd, not
/// fallocate: the kernel refuses a swap file with holes or unwritten extents.
/// </summary>
public sealed class SwapFile : IDisposable
{
    private SwapFile(string path) => Path = path;

    public string Path { get; }

    /// <summary>Why this machine cannot give a test swap, or null when it can: probed once with a real 1 MiB swap file.</summary>
    public static string? Unavailable => Probe.Value;

    private static readonly Lazy<string?> Probe = new(() =>
    {
        if (!OperatingSystem.IsLinux())
        {
            return "swap needs Linux";
        }

        if (!Environment.IsPrivilegedProcess)
        {
            return "swapon needs root";
        }

        if (!File.Exists("/proc/swaps"))
        {
            return "this kernel has no swap support (/proc/swaps is missing)";
        }

        try
        {
            using SwapFile probe = Create(TestFile.MiB);
            return null;
        }
        catch (InvalidOperationException e)
        {
            return e.Message;
        }
    });

    /// <summary>Creates, formats and switches on a swap file of <paramref name="bytes"/> in the temp folder.</summary>
    /// <exception cref="InvalidOperationException">dd, mkswap or swapon failed; the message has their output.</exception>
    public static SwapFile Create(long bytes)
    {
        string path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"sharpi-prefault-swap-{Guid.NewGuid():N}");
        var swap = new SwapFile(path);
        bool on = false;
        try
        {
            Run("dd", "if=/dev/zero", $"of={path}", "bs=1M", $"count={Math.Max(1, bytes / TestFile.MiB)}", "status=none");
            Run("chmod", "600", path);
            Run("mkswap", path);
            Run("swapon", path);
            on = true;
            return swap;
        }
        finally
        {
            if (!on)
            {
                File.Delete(path);
            }
        }
    }

    public void Dispose()
    {
        try
        {
            Run("swapoff", Path);
        }
        finally
        {
            File.Delete(Path);
        }
    }

    private static void Run(string tool, params string[] arguments)
    {
        var start = new ProcessStartInfo(tool) { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string a in arguments)
        {
            start.ArgumentList.Add(a);
        }

        using Process process = Process.Start(start) ?? throw new InvalidOperationException($"{tool} could not be started");
        string output = process.StandardOutput.ReadToEnd() + process.StandardError.ReadToEnd();
        process.WaitForExit();
        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"{tool} {string.Join(' ', arguments)} failed ({process.ExitCode}): {output.Trim()}");
        }
    }
}
