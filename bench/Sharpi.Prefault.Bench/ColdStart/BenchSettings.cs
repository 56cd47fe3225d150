namespace Sharpi.Prefault.Bench;

/// <summary>The knobs every row shares.</summary>
/// <param name="FirstPassThreads">Threads of the simulated forward pass (default: all cores).</param>
/// <param name="PrefaultThreads"><see cref="PrefaultOptions.MaxDegreeOfParallelism"/> of the prefault rows.</param>
/// <param name="ChunkSize"><see cref="PrefaultOptions.ChunkSize"/> of the prefault rows.</param>
/// <param name="LimitThreads">Threads of the O_DIRECT read limit.</param>
/// <param name="LimitBlockSize">Bytes per O_DIRECT read of the limit.</param>
internal sealed record BenchSettings(int FirstPassThreads, int PrefaultThreads, long ChunkSize, int LimitThreads, int LimitBlockSize)
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
