namespace Sharpi.Prefault.Bench;

/// <summary>The knobs every row shares.</summary>
/// <param name="FirstPassThreads">Threads of the simulated first request (default: all cores).</param>
/// <param name="PrefaultThreads"><see cref="PrefaultOptions.MaxDegreeOfParallelism"/> of the prefault rows.</param>
/// <param name="ChunkSize"><see cref="PrefaultOptions.ChunkSize"/> of the prefault rows.</param>
/// <param name="LimitThreads">Threads of the buffered read limit (the O_DIRECT limits have their own reads in flight).</param>
/// <param name="LimitBlockSize">Bytes per read of the limit readers.</param>
/// <param name="Request">The first request every row runs after its strategy.</param>
internal sealed record BenchSettings(int FirstPassThreads, int PrefaultThreads, long ChunkSize, int LimitThreads, int LimitBlockSize, RequestPlan Request)
{
    internal PrefaultOptions Prefault(PrefaultStrategy strategy, RamGate gate = RamGate.FitsInRam) => PrefaultOptions.Default with
    {
        Label = "bench",
        Strategy = strategy,
        RamGate = gate,
        MaxDegreeOfParallelism = PrefaultThreads,
        ChunkSize = ChunkSize,
    };
}
