using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// A run logs one short line at Information (what, how much, how fast, by which method) and the reasons at Debug
/// (how each chunk was read and touched, how the bytes were read ahead): the Information line once ran to about 520
/// characters with every reason in it.
/// </summary>
public sealed class RunLogLineTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_LogsOneShortLineAtInformation_AndItsReasonsAtDebug()
    {
        using TestFile file = TestFile.Create(64 * TestFile.MiB);
        using MappedFile map = MappedFile.ReadOnly(file.Path);
        var log = new ListLogger();

        PrefaultResult result = MmapPrefault.Run([map.Region(0, map.Length, "weights")],
            new PrefaultOptions { Label = "engine", Logger = log, RamGate = RamGate.Always });

        string line = Assert.Single(log.At(LogLevel.Information));
        Assert.StartsWith("[engine] Pre-faulted ", line, StringComparison.Ordinal);
        Assert.True(line.Length <= 120, $"the Information line is {line.Length} characters: {line}");
        Assert.NotEmpty(result.MechanismDescription);
        Assert.DoesNotContain(result.MechanismDescription, line, StringComparison.Ordinal);
        string how = Assert.Single(log.At(LogLevel.Debug), m => m.StartsWith("[engine] How: ", StringComparison.Ordinal));
        Assert.Contains(result.MechanismDescription, how, StringComparison.Ordinal);
        if (result.ReadAheadDescription.Length > 0)
        {
            Assert.DoesNotContain(result.ReadAheadDescription, line, StringComparison.Ordinal);
            Assert.Contains(result.ReadAheadDescription, how, StringComparison.Ordinal);
        }
    }
}
