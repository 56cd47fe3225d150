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
    /// <summary>The published hosts of the fresh-process rows, by kind (<see cref="FirstCallHosts"/>); empty when none runs.</summary>
    internal IReadOnlyDictionary<string, string> FreshHosts { get; init; } = new Dictionary<string, string>();

    /// <summary>The compiled C reader of the plain C mmap reference row (<c>c-populate</c>); null where it does not run.</summary>
    internal CReaders? CReaders { get; init; }

    /// <summary>Bytes per read of the limit readers: 32 MiB, the library's default chunk.</summary>
    internal const int DefaultLimitBlockSize = 32 * 1024 * 1024;

    /// <summary>
    /// The defaults of <c>coldstart</c>, for a command that runs its own request and borrows the limit readers and the
    /// prefault options: <paramref name="request"/> is what those readers ignore (they run none).
    /// </summary>
    internal static BenchSettings Defaults(RequestPlan request) => new(
        FirstPassThreads: Environment.ProcessorCount,
        PrefaultThreads: new PrefaultOptions().MaxDegreeOfParallelism,
        ChunkSize: new PrefaultOptions().ChunkSize,
        LimitThreads: Math.Max(2, Environment.ProcessorCount),
        LimitBlockSize: DefaultLimitBlockSize,
        Request: request);

    internal PrefaultOptions Prefault(PrefaultStrategy strategy, RamGate gate = RamGate.FitsInRam, bool isHugePageAdviceEnabled = true) => new PrefaultOptions
    {
        IsHugePageAdviceEnabled = isHugePageAdviceEnabled,
        Label = "bench",
        Strategy = strategy,
        RamGate = gate,
        MaxDegreeOfParallelism = PrefaultThreads,
        ChunkSize = ChunkSize,
    };
}
