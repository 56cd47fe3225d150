namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// How many threads a run starts: none where everything is resident and filling the page tables is quick (an engine's
/// warm restart), helpers once that proves slow, and at once wherever something must be read. The sweep's clock is the
/// test's (<see cref="TestClock"/>), so "quick" and "slow" are what the test says, never what this machine's load makes them.
/// </summary>
public sealed class MmapPrefaultThreadsTests
{
    private const long MiB = TestFile.MiB;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_OverAFullyResidentFile_SweepsOnTheCallingThreadAlone()
    {
        using TestFile file = TestFile.Create(16 * MiB, evict: false);
        using MappedFile map = file.Map();
        MakeResident(file, map);

        PrefaultResult result = MmapPrefault.Run([map.Region()], Options(new TestClock()));

        Assert.True(result.HasRun, result.Reason);
        Assert.Equal(file.Length, result.BytesAlreadyResident);
        Assert.Equal(file.Length, result.Bytes);
        Assert.Equal(1, result.Threads);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_OverAFullyResidentFileThatSweepsSlowly_StartsHelpers()
    {
        using TestFile file = TestFile.Create(16 * MiB, evict: false);
        using MappedFile map = file.Map();
        MakeResident(file, map);
        var slow = new TestClock { StepPerRead = (long)(2 * StrideSweep.HelpersAfter.TotalMilliseconds) };

        PrefaultResult result = MmapPrefault.Run([map.Region()], Options(slow));

        Assert.Equal(file.Length, result.BytesAlreadyResident);
        Assert.Equal(file.Length, result.Bytes);
        Assert.True(result.Threads > 1, $"{result.Threads} thread(s)");
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithBytesToRead_StartsItsThreadsAtOnce()
    {
        using TestFile file = TestFile.Create(16 * MiB);
        using MappedFile map = file.Map();

        PrefaultResult result = MmapPrefault.Run([map.Region()], Options(new TestClock()));

        Assert.Equal(0, result.BytesAlreadyResident);
        Assert.Equal(file.Length, result.Bytes);
        Assert.Equal(4, result.Threads);
    }

    /// <summary>16 chunks of 1 MiB on up to 4 threads, on <paramref name="clock"/>.</summary>
    private static PrefaultOptions Options(TestClock clock) =>
        new() { RamGate = RamGate.Always, ChunkSize = MiB, MaxDegreeOfParallelism = 4, Clock = clock };

    private static void MakeResident(TestFile file, MappedFile map)
    {
        _ = File.ReadAllBytes(file.Path);
        Assert.Equal(100.0, map.ResidentPercent(), 3);
    }
}
