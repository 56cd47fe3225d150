using System.Globalization;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// Staging views are mappings too: near vm.max_map_count a view per file took the last slots and the runtime aborted
/// the process (exit 134). Run in a child process, which the abort would kill instead of the test host.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class FileStagingMapCountTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.HugePageRun))]
    public void Run_OverManyCopyOnWriteFilesNearTheMapLimit_MakesOnlyTheViewsThatFit_AndSweepsAll()
    {
        const int Files = 2000;
        string folder = Directory.CreateTempSubdirectory("sharpi-stage-limit-").FullName;
        try
        {
            byte[] bytes = new byte[16 * Environment.SystemPageSize];
            for (int i = 0; i < Files; i++)
            {
                File.WriteAllBytes(Path.Combine(folder, $"f{i}"), bytes);
            }

            CliRun run = ChildProcess.Run([ChildCases.StageAtMapLimit, folder, Files.ToString(CultureInfo.InvariantCulture), "500"]);

            Assert.Equal(0, run.ExitCode);
            Assert.Equal((long)Files * bytes.Length, long.Parse(ChildProcess.Value(run, "bytes"), CultureInfo.InvariantCulture));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }
}
