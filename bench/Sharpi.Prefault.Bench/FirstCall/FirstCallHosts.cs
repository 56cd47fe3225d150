using System.Diagnostics;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The kinds of host the <c>firstcall</c> command starts, each the same program (bench/Sharpi.Prefault.FirstCall)
/// published another way: as an engine that references the library's project and runs on the JIT, the same published
/// with ReadyToRun, published with NativeAOT, and one that installs the library's package packed from this checkout.
/// </summary>
internal static class FirstCallHosts
{
    internal const string Jit = "jit";
    internal const string ReadyToRun = "r2r";
    internal const string NativeAot = "aot";
    internal const string Package = "package";

    internal static readonly string[] All = [Jit, ReadyToRun, NativeAot, Package];

    private const string HostProject = "bench/Sharpi.Prefault.FirstCall";
    private const string HostName = "Sharpi.Prefault.FirstCall";

    internal static string Describe(string kind) => kind switch
    {
        Jit => "JIT, the library as a project reference",
        ReadyToRun => "the app and the library published with ReadyToRun",
        NativeAot => "NativeAOT",
        Package => "JIT, the library installed from its package (packed from this checkout)",
        _ => kind,
    };

    /// <summary>The repository this bench was built from: the host project is published from there.</summary>
    internal static string FindRepository()
    {
        for (DirectoryInfo? dir = new(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Sharpi.Prefault.sln")))
            {
                return dir.FullName;
            }
        }

        throw new BenchException("firstcall publishes bench/Sharpi.Prefault.FirstCall: run the bench from the repository (dotnet run --project bench/Sharpi.Prefault.Bench).");
    }

    /// <summary>Publishes <paramref name="kind"/> into <paramref name="hostsDir"/>/kind (reused with <paramref name="reuse"/> when there) and returns its executable.</summary>
    internal static string Publish(string repository, string hostsDir, string kind, string framework, bool reuse, ProgressLine progress)
    {
        string output = Path.Combine(hostsDir, kind);
        string executable = Path.Combine(output, HostName);
        if (reuse && File.Exists(executable))
        {
            progress.Note($"Reusing the {kind} host in {output}.");
            return executable;
        }

        if (Directory.Exists(output))
        {
            Directory.Delete(output, recursive: true);
        }

        var arguments = new List<string> { "publish", HostProject, "-c", "Release", "-f", framework, "-o", output, "-nologo" };
        var environment = new Dictionary<string, string>();
        switch (kind)
        {
            case ReadyToRun:
                arguments.AddRange(["-r", "linux-x64", "--self-contained", "false", "-p:PublishReadyToRun=true"]);
                break;
            case NativeAot:
                arguments.AddRange(["-r", "linux-x64", "-p:PublishAot=true"]);
                break;
            case Package:
                string version = PackLibrary(repository, hostsDir, progress);
                arguments.AddRange([$"-p:FirstCallPackageVersion={version}", $"-p:FirstCallPackageSource={Path.Combine(hostsDir, "feed")}",
                    $"-p:BaseIntermediateOutputPath={Path.Combine(hostsDir, "obj-package")}/"]);
                environment["NUGET_PACKAGES"] = Path.Combine(hostsDir, "nuget-packages"); // never the machine's cache: this version is new
                break;
        }

        progress.Begin($"publishing the {kind} host ({Describe(kind)})");
        Dotnet(repository, arguments, environment, $"publishing the {kind} host");
        if (!File.Exists(executable))
        {
            throw new BenchException($"Publishing the {kind} host left no {executable}.");
        }

        progress.Note($"Published the {kind} host to {output}.");
        return executable;
    }

    /// <summary>
    /// Runs the host at <paramref name="executable"/> over <paramref name="path"/> once, in a fresh process, and
    /// returns its line; a host that fails or prints none is a <see cref="BenchException"/>.
    /// </summary>
    internal static FirstCallSample Run(string kind, string executable, string path)
    {
        var start = new ProcessStartInfo(executable, [path]) { UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        long started = Stopwatch.GetTimestamp();
        using Process process = Process.Start(start) ?? throw new BenchException($"Could not start {executable}.");
        Task<string> errors = process.StandardError.ReadToEndAsync();
        string output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        double processMs = Stopwatch.GetElapsedTime(started).TotalMilliseconds;
        if (process.ExitCode != 0)
        {
            throw new BenchException($"The {kind} host exited with {process.ExitCode}:{Environment.NewLine}{output}{errors.Result}");
        }

        return FirstCallSample.Parse(kind, output, processMs)
            ?? throw new BenchException($"The {kind} host printed no 'firstcall' line:{Environment.NewLine}{output}{errors.Result}");
    }

    /// <summary>Packs the library from this checkout under a version of its own (so no cache holds an older build of it).</summary>
    private static string PackLibrary(string repository, string hostsDir, ProgressLine progress)
    {
        string suffix = $"firstcall.{DateTimeOffset.UtcNow.ToUnixTimeSeconds()}";
        string feed = Path.Combine(hostsDir, "feed");
        progress.Begin("packing Sharpi.Prefault for the package host");
        Dotnet(repository, ["pack", "src/Sharpi.Prefault", "-c", "Release", "-o", feed, "-nologo", $"-p:VersionSuffix={suffix}"], [], "packing the library");
        string? package = Directory.EnumerateFiles(feed, $"Sharpi.Prefault.*-{suffix}.nupkg").FirstOrDefault();
        if (package is null)
        {
            throw new BenchException($"dotnet pack left no Sharpi.Prefault.*-{suffix}.nupkg in {feed}.");
        }

        string name = Path.GetFileNameWithoutExtension(package);
        return name["Sharpi.Prefault.".Length..];
    }

    private static void Dotnet(string repository, IEnumerable<string> arguments, Dictionary<string, string> environment, string what)
    {
        var start = new ProcessStartInfo("dotnet", arguments)
        {
            WorkingDirectory = repository,
            UseShellExecute = false,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach ((string key, string value) in environment)
        {
            start.Environment[key] = value;
        }

        using Process process = Process.Start(start) ?? throw new BenchException($"Could not start dotnet for {what}.");
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        Task<string> errors = process.StandardError.ReadToEndAsync();
        process.WaitForExit();
        if (process.ExitCode != 0)
        {
            throw new BenchException($"{what} failed (dotnet exited with {process.ExitCode}):{Environment.NewLine}{output.Result}{errors.Result}");
        }
    }
}
