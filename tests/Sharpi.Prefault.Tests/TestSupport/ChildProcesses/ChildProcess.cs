using System.Diagnostics;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>Runs a <see cref="ChildProgram"/> case in a child process (<c>dotnet Sharpi.Prefault.Tests.dll CASE ARGS</c>).</summary>
internal static class ChildProcess
{
    private static readonly string AssemblyPath = typeof(ChildProgram).Assembly.Location;

    /// <summary>
    /// Runs the case to its end (killed and failed past <paramref name="timeout"/>); with <paramref name="procsFile"/>
    /// (a cgroup's cgroup.procs) the child joins that group before the runtime starts, so nothing of the test host does;
    /// with <paramref name="asNobody"/> it runs as the unprivileged user nobody (<see cref="Unprivileged"/>).
    /// With <paramref name="ownMountNamespace"/> (root, util-linux's unshare) the child runs in a mount namespace of its
    /// own, where it may mount over its own /proc files (<see cref="MaskOwnProcMaps"/>) without the host seeing it.
    /// <paramref name="environment"/> adds variables to the child's.
    /// </summary>
    public static CliRun Run(IEnumerable<string> args, string? procsFile = null, TimeSpan? timeout = null, bool asNobody = false, bool ownMountNamespace = false,
        IReadOnlyDictionary<string, string>? environment = null, bool asRootWithoutCapabilities = false)
    {
        string dotnet = Environment.ProcessPath is string host && Path.GetFileNameWithoutExtension(host) == "dotnet" ? host : "dotnet";
        var start = new ProcessStartInfo(ownMountNamespace ? "unshare" : "/bin/sh") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        if (ownMountNamespace)
        {
            foreach (string arg in (string[])["--mount", "--propagation", "private", "/bin/sh"])
            {
                start.ArgumentList.Add(arg);
            }
        }

        start.ArgumentList.Add("-c");
        string exec = asNobody ? $"exec {Unprivileged.Setpriv}\"$@\""
            : asRootWithoutCapabilities ? $"exec {Unprivileged.RootWithoutCapabilities}\"$@\""
            : "exec \"$@\"";
        start.ArgumentList.Add(procsFile is null ? exec : $"echo $$ > \"$PROCS\" && {exec}");
        start.ArgumentList.Add("sh");
        start.ArgumentList.Add(dotnet);
        start.ArgumentList.Add(AssemblyPath);
        foreach (string arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        if (procsFile is not null)
        {
            start.Environment["PROCS"] = procsFile;
        }

        foreach ((string name, string value) in environment ?? new Dictionary<string, string>())
        {
            start.Environment[name] = value;
        }

        using Process child = Process.Start(start)!;
        Task<string> stdout = child.StandardOutput.ReadToEndAsync();
        Task<string> stderr = child.StandardError.ReadToEndAsync();
        TimeSpan limit = timeout ?? TimeSpan.FromSeconds(120);
        if (!child.WaitForExit(limit))
        {
            child.Kill(entireProcessTree: true);
            child.WaitForExit();
            Assert.Fail($"the child did not finish within {limit.TotalSeconds} s (a hang). stderr: {stderr.Result}");
        }

        child.WaitForExit();
        return new CliRun(child.ExitCode, stdout.Result, stderr.Result);
    }

    /// <summary>
    /// In a child started with its own mount namespace, binds /dev/null over this process's /proc/PID/maps, as a
    /// hardened container masks /proc: it then reads empty. Done once the runtime is up (it reads the file as it
    /// starts, and fails to start without it), by a mount(8) that shares this process's namespace.
    /// </summary>
    public static void MaskOwnProcMaps()
    {
        using Process mount = Process.Start("mount", ["--bind", "/dev/null", $"/proc/{Environment.ProcessId}/maps"]);
        mount.WaitForExit();
        if (mount.ExitCode != 0)
        {
            throw new InvalidOperationException($"mount --bind /dev/null over /proc/{Environment.ProcessId}/maps failed (exit {mount.ExitCode})");
        }
    }

    /// <summary>The value of a <c>key=value</c> line the child printed.</summary>
    public static string Value(CliRun run, string key)
    {
        foreach (string line in run.Out.Split('\n'))
        {
            if (line.StartsWith(key + "=", StringComparison.Ordinal))
            {
                return line[(key.Length + 1)..];
            }
        }

        throw new Xunit.Sdk.XunitException($"the child printed no {key}= line (exit {run.ExitCode}). stdout:\n{run.Out}\nstderr:\n{run.Err}");
    }
}
