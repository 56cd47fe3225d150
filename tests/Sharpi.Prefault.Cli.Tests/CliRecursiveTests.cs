namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// <c>-r</c> visits each directory and each file once, by device and inode: symlink loops end, and a file reached by
/// several paths is worked on once. In a child process with a timeout: the old walk followed a loop forever.
/// </summary>
public sealed class CliRecursiveTests
{
    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData(1)]
    [InlineData(2)]
    public void Recursive_OverSymlinkLoops_TakesEachFileOnce(int loops)
    {
        using var model = new CliModelFiles();
        string root = Path.Combine(model.Directory, "L");
        Directory.CreateDirectory(Path.Combine(root, "sub"));
        string a = model.Write(Path.Combine("L", "a.bin"), new byte[8192]);
        string b = model.Write(Path.Combine("L", "sub", "b.bin"), new byte[8192]);
        File.CreateSymbolicLink(Path.Combine(root, "sub", "up"), "..");
        if (loops == 2)
        {
            File.CreateSymbolicLink(Path.Combine(root, "self"), "../L");
        }

        CliRun run = CliProcess.Run(["touch", "-r", root, "--json", "--gate", "always"], timeout: TimeSpan.FromSeconds(30));

        NoStackTrace.In(run);
        Assert.Equal(0, run.ExitCode);
        string[] files = [.. run.Json().GetProperty("files").EnumerateArray().Select(f => f.GetProperty("file").GetString()!)];
        Assert.Equal([a, b], files);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Recursive_TakesAFileReachedThroughALinkOnce_ByItsRealPath()
    {
        using var model = new CliModelFiles();
        string root = Path.Combine(model.Directory, "models");
        Directory.CreateDirectory(root);
        string real = model.Write(Path.Combine("models", "weights.bin"), new byte[8192]);
        File.CreateSymbolicLink(Path.Combine(root, "latest.bin"), "weights.bin");
        File.CreateSymbolicLink(Path.Combine(root, "alias-dir"), ".");

        CliRun run = CliRun.Of("resident", "-r", root, "--json");

        Assert.Equal(0, run.ExitCode);
        JsonElement files = run.Json().GetProperty("files");
        Assert.Equal(1, files.GetArrayLength());
        Assert.Equal(real, files[0].GetProperty("file").GetString());
    }
}
