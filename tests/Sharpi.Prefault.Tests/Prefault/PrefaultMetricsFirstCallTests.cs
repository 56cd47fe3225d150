namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// The metrics an engine's first call pays for only where something can see them: in a fresh process with no listener
/// the first <c>Run</c> loads no System.Diagnostics.DiagnosticSource and creates no instrument; a listener started
/// later counts the next run, and a metrics EventPipe session (what dotnet-counters starts) sees the first one.
/// </summary>
public sealed class PrefaultMetricsFirstCallTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithNothingListening_LoadsNoMetricsAssemblyAndCreatesNoInstrument()
    {
        using TestFile file = TestFile.Create(4 * TestFile.MiB);

        CliRun run = ChildProcess.Run([ChildCases.FirstRunMetrics, file.Path]);

        Assert.Equal("False", ChildProcess.Value(run, "metricsLoadedBeforeRun"));
        Assert.Equal("False", ChildProcess.Value(run, "metricsLoadedAfterRun"));
        Assert.Equal("0", ChildProcess.Value(run, "instrumentsAfterFirstRun"));
        Assert.Equal("1", ChildProcess.Value(run, "runsCountedOnSecondRun"));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_UnderAMetricsEventPipeSession_RecordsTheFirstRun()
    {
        using TestFile file = TestFile.Create(4 * TestFile.MiB);
        string trace = Path.Combine(Path.GetTempPath(), $"sharpi-metrics-{Guid.NewGuid():N}.nettrace");
        try
        {
            // A startup session for the runtime's metrics provider, as `dotnet-counters collect` asks for one.
            CliRun run = ChildProcess.Run([ChildCases.FirstRunMetrics, file.Path], environment: new Dictionary<string, string>
            {
                ["DOTNET_EnableEventPipe"] = "1",
                ["DOTNET_EventPipeConfig"] = "System.Diagnostics.Metrics:0xffffffffffffffff:4",
                ["DOTNET_EventPipeOutputPath"] = trace,
            });

            Assert.Equal("True", ChildProcess.Value(run, "metricsLoadedAfterRun"));
            Assert.NotEqual("0", ChildProcess.Value(run, "instrumentsAfterFirstRun"));
            Assert.Equal("1", ChildProcess.Value(run, "runsCountedOnSecondRun"));
        }
        finally
        {
            File.Delete(trace);
        }
    }
}
