using System.Diagnostics;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// What <c>-r</c> cannot use is named, and the exit code is 1: a file whose name is not valid UTF-8 (Linux names are
/// bytes; .NET decodes them to text with U+FFFD for what is not UTF-8, a name no call can open again), and a
/// subdirectory the user may not list or look into. A readiness probe must never call such a tree warm.
/// </summary>
public sealed class CliUnusableEntriesTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Recursive_OverAFileWhoseNameIsNotUtf8_NamesIt_AndExitsOne()
    {
        AssertRecursiveNamesTheBadFile_AndIsNotWarm(beside: "good.bin");
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Recursive_OverAFileWhoseNameIsNotUtf8_BesideTheFileItsTextNames_NamesIt_AndExitsOne()
    {
        // bad\377.bin is listed as bad\uFFFD.bin, the valid name of the file beside it: the old code counted that file
        // once, and the other not at all, and a readiness probe called the tree warm (exit 0).
        AssertRecursiveNamesTheBadFile_AndIsNotWarm(beside: "bad\uFFFD.bin");
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void NamedDirectly_AFileWhoseNameIsNotUtf8_IsNamedAsSuch_NotAsMissing()
    {
        using var model = new CliModelFiles();
        using var bad = new BadlyNamedFile(model.Directory);

        CliRun run = ResidentOfTheBadFileByName(model);

        Assert.DoesNotContain("no such file", run.Err, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void NamedDirectly_AFileWhoseNameIsNotUtf8_IsRefused_NotTakenForTheFileItsTextNames()
    {
        // bad\377.bin reaches .NET as bad\uFFFD.bin, the valid name of the file beside it: the old code measured that
        // other file (4 KiB, all resident) and exited 0, never saying the named file was not the one worked on.
        using var model = new CliModelFiles();
        using var bad = new BadlyNamedFile(model.Directory);
        model.Write("bad\uFFFD.bin", new byte[4096]);

        CliRun run = ResidentOfTheBadFileByName(model);

        Assert.DoesNotContain("4.00 KiB", run.Out, StringComparison.Ordinal);
    }

    /// <summary>
    /// 700: nobody may not list the subdirectory; 744: it may list it but not look up what is in it. The readable file
    /// beside it is writable by all, so its residency is known to nobody and the subdirectory is the only failure.
    /// </summary>
    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Unprivileged))]
    [InlineData("700", "sub")]
    [InlineData("744", "sub/inner.bin")]
    [System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
    public void Recursive_OverASubdirectoryTheUserCannotRead_NamesIt_AndExitsOne(string mode, string named)
    {
        using var model = new CliModelFiles();
        string readable = model.Write("ok.bin", new byte[4096]);
        File.SetUnixFileMode(readable, (UnixFileMode)Convert.ToInt32("666", 8));
        string sub = Path.Combine(model.Directory, "sub");
        Directory.CreateDirectory(sub);
        model.Write(Path.Combine("sub", "inner.bin"), new byte[4096]);
        File.SetUnixFileMode(sub, (UnixFileMode)Convert.ToInt32(mode, 8));
        File.SetUnixFileMode(model.Directory, (UnixFileMode)Convert.ToInt32("755", 8));

        CliRun run = CliProcess.RunShell($"exec {Unprivileged.Setpriv}$TOOL resident -r '{model.Directory}' --min 0");

        NoStackTrace.In(run);
        Assert.True(run.ExitCode == 1, $"exit {run.ExitCode}\n{run.Out}\n{run.Err}");
        Assert.Contains($"{Path.Combine(model.Directory, named)}: ", run.Err, StringComparison.Ordinal);
        Assert.Contains("permission denied", run.Err, StringComparison.Ordinal);
        Assert.StartsWith("not warm", run.Out, StringComparison.Ordinal);
    }

    /// <summary>
    /// <c>resident -r --min 0</c> over a folder holding bad\377.bin and a readable 4 KiB file named <paramref name="beside"/>
    /// names the bad file as unusable, exits 1 and does not call the tree warm.
    /// </summary>
    private static void AssertRecursiveNamesTheBadFile_AndIsNotWarm(string beside)
    {
        using var model = new CliModelFiles();
        model.Write(beside, new byte[4096]);
        using var bad = new BadlyNamedFile(model.Directory);

        CliRun run = CliRun.Of("resident", "-r", model.Directory, "--min", "0");

        Assert.Equal(1, run.ExitCode);
        Assert.Contains(@"bad\ufffd.bin: cannot be used: its name is not valid UTF-8", run.Err, StringComparison.Ordinal);
        Assert.StartsWith("not warm", run.Out, StringComparison.Ordinal);
    }

    /// <summary>
    /// <c>resident</c> given bad\377.bin itself (through a shell: the name is not text) names it as unusable, with no
    /// stack trace, and exits 1.
    /// </summary>
    private static CliRun ResidentOfTheBadFileByName(CliModelFiles model)
    {
        CliRun run = CliProcess.RunShell($"exec $TOOL resident \"$(printf '{model.Directory}/bad\\377.bin')\"");

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains(@"bad\ufffd.bin: cannot be used: its name is not valid UTF-8", run.Err, StringComparison.Ordinal);
        return run;
    }

    /// <summary><c>DIR/bad\xff.bin</c>, made and removed by the shell: .NET cannot name it.</summary>
    private sealed class BadlyNamedFile : IDisposable
    {
        private readonly string _directory;

        public BadlyNamedFile(string directory)
        {
            _directory = directory;
            Shell("printf x > \"$DIR/$(printf 'bad\\377.bin')\"", directory);
        }

        public void Dispose() => Shell("rm -f \"$DIR/$(printf 'bad\\377.bin')\"", _directory);
    }

    private static void Shell(string command, string directory)
    {
        var start = new ProcessStartInfo("bash") { UseShellExecute = false };
        start.ArgumentList.Add("-c");
        start.ArgumentList.Add(command);
        start.Environment["DIR"] = directory;
        using Process process = Process.Start(start)!;
        process.WaitForExit();
        Assert.Equal(0, process.ExitCode);
    }

}
