using System.Text.Json.Serialization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The JSON contract other tools read (camelCase; fields may be added, never renamed). A null field is left out
/// (<see cref="BenchJsonContext"/>), but for the machine's, which are always written.
/// </summary>
internal sealed record BenchReport
{
    public required string Command { get; init; }

    public required string File { get; init; }

    public required long Bytes { get; init; }

    public required int PageSize { get; init; }

    public required int Cores { get; init; }

    public required string Kernel { get; init; }

    public required MachineInfo Machine { get; init; }

    public required int Repeat { get; init; }

    public required DateTimeOffset GeneratedAt { get; init; }

    public required IReadOnlyList<ResultRow> Results { get; init; }

    public IReadOnlyList<string> Notes { get; init; } = [];

    /// <summary>coldstart: the request every row ran after its strategy (shape, what it reads, how much).</summary>
    public string? Request { get; init; }

    /// <summary>coldstart: the median time of that request over a fully warm, already-mapped file (the <c>x warm</c> denominator).</summary>
    public double? WarmRequestSeconds { get; init; }

    /// <summary>
    /// coldstart without <c>--wide</c>: short lines that say what the compact columns mean, printed instead of the
    /// explanatory notes (the files always get every note).
    /// </summary>
    [JsonIgnore]
    public IReadOnlyList<string>? Legend { get; init; }

    /// <summary>The notes on the machine's settings and skipped rows, printed beside <see cref="Legend"/>.</summary>
    [JsonIgnore]
    public IReadOnlyList<string> Conditions { get; init; } = [];

    /// <summary>
    /// coldstart: the report's first line, whether the default prefault made the first request done sooner or later
    /// than no prefault on this machine, and by how much (or within noise), per pass.
    /// </summary>
    public string? Headline { get; init; }

    /// <summary>coldstart and engine: what the run showed (a prefault row's first request and load against none's), read first.</summary>
    public string? Verdict { get; init; }

    /// <summary>coldstart: "BUG: row X beats limit by N%" lines; empty when every row stayed within the noise of its limit.</summary>
    public IReadOnlyList<string> Bugs { get; init; } = [];

    /// <summary>A report of <paramref name="results"/> over <paramref name="file"/>, stamped with this machine and now.</summary>
    internal static BenchReport Create(string command, WeightsFile file, int repeat, IReadOnlyList<ResultRow> results, IReadOnlyList<string> notes)
    {
        var machine = MachineInfo.Current(file.Path);
        return new BenchReport
        {
            Command = command,
            File = file.Path,
            Bytes = file.Length,
            PageSize = Environment.SystemPageSize,
            Cores = Environment.ProcessorCount,
            Kernel = machine.Kernel,
            Machine = machine,
            Repeat = repeat,
            GeneratedAt = DateTimeOffset.UtcNow,
            Results = results,
            Notes = notes,
        };
    }
}

/// <summary>One row: the medians of a strategy's repetitions in one cache state.</summary>
internal sealed record ResultRow
{
    public required string Strategy { get; init; }

    public required string Cache { get; init; }

    /// <summary>Engine rows: the session's prepacking setting ("off" or "on").</summary>
    public string? Prepacking { get; init; }

    /// <summary>
    /// coldstart's fresh-process rows (<c>--fresh</c>): the host that ran the prefault in a process of its own (jit,
    /// package, aot). Such a row's times are that process's map + first call and it ran no request (firstPassSeconds 0).
    /// </summary>
    public string? Host { get; init; }

    /// <summary>The disk's read_ahead_kb during the row, where the run set it (<c>--read-ahead-kb</c>).</summary>
    public int? ReadAheadKb { get; init; }

    /// <summary>coldstart <c>--device</c>: the scratch device the row ran on (ram-ext4, disk-btrfs...); null for the file where it is.</summary>
    public string? Device { get; init; }

    /// <summary>The pass the row belongs to: its device and read_ahead_kb.</summary>
    [JsonIgnore]
    internal RunPass Pass => new(Device, ReadAheadKb);

    /// <summary>How many repetitions the medians come from.</summary>
    public required int Repeat { get; init; }

    /// <summary>The strategy itself (mapping excluded; a buffer's allocation and the read included); engine rows: the prefault's own time.</summary>
    public required double Seconds { get; init; }

    /// <summary>The first request after it (the first pass), on the first-pass threads.</summary>
    public required double FirstPassSeconds { get; init; }

    /// <summary>
    /// Median of strategy + first pass per repetition (overlap: + init): the time to the first token, in effect;
    /// engine rows: from the row's start to the end of its first inference, timed whole.
    /// </summary>
    public required double TotalSeconds { get; init; }

    /// <summary>
    /// Cold rows: <see cref="Seconds"/> (engine rows: and <see cref="CreateSeconds"/>) plus what the first request took beyond a warm one, the time the row spent
    /// getting the bytes in (before or during its request); otherwise <see cref="TotalSeconds"/>. What <see cref="RatioToLimit"/> compares.
    /// </summary>
    public required double LoadSeconds { get; init; }

    /// <summary>The median over repetitions of the row's warm request, timed right after its first on the same memory (coldstart: the median of three more runs; engine: the second inference); what <see cref="RatioToWarm"/> divides by.</summary>
    public double? WarmPassSeconds { get; init; }

    /// <summary>The fastest repetition's <see cref="LoadSeconds"/> (with <see cref="MaxLoadSeconds"/>, the spread a verdict calls noise).</summary>
    public double MinLoadSeconds { get; init; }

    public double MaxLoadSeconds { get; init; }

    public required double MinTotalSeconds { get; init; }

    public required double MaxTotalSeconds { get; init; }

    /// <summary>File bytes per second of <see cref="TotalSeconds"/>.</summary>
    public required double GibPerSecond { get; init; }

    /// <summary>The limit row's <see cref="LoadSeconds"/> over this row's in the same cache state (1.0 = as fast as the limit).</summary>
    public double? RatioToLimit { get; init; }

    /// <summary>The median over repetitions of the row's first request over its warm one (<see cref="WarmPassSeconds"/>; 1.0 = nothing left to fault).</summary>
    public double? RatioToWarm { get; init; }

    /// <summary>The lowest and highest repetition's first request over its warm one (with <see cref="RatioToWarm"/>, how far single requests spread).</summary>
    public double? MinRatioToWarm { get; init; }

    public double? MaxRatioToWarm { get; init; }

    /// <summary>Bytes the row's threads (and children) read from storage: getrusage ru_inblock x 512.</summary>
    public long StorageBytes { get; init; }

    /// <summary><see cref="StorageBytes"/> per second of <see cref="TotalSeconds"/>: what the device delivered to the row.</summary>
    public double StorageGibPerSecond { get; init; }

    /// <summary>The disk's average read request over the row (its /sys/block stat: bytes over reads, all processes), in KiB.</summary>
    public double? AverageReadRequestKb { get; init; }

    public required long MinorFaults { get; init; }

    public required long MajorFaults { get; init; }

    /// <summary>Of <see cref="MinorFaults"/>, those taken by the first pass (a complete prefault leaves almost none).</summary>
    public long FirstPassMinorFaults { get; init; }

    /// <summary>Of <see cref="MajorFaults"/>, those taken by the first pass.</summary>
    public long FirstPassMajorFaults { get; init; }

    public required double ResidentPercentBefore { get; init; }

    public required double ResidentPercentAfter { get; init; }

    /// <summary>mmap rows: share of the file mapped with 2 MiB entries after the strategy, before the first pass (FilePmdMapped).</summary>
    public double? PmdMappedPercent { get; init; }

    /// <summary>How the strategy brought the pages in (populate, touch, hint, read, O_DIRECT...).</summary>
    public string? Method { get; init; }

    /// <summary>
    /// coldstart's in-process MmapPrefault rows: what the library ran, the same in every repetition (its method,
    /// threads and <see cref="PrefaultResult.ReadAheadDescription"/> less the reason for its huge-page choice); null
    /// where the repetitions ran differently. Two rows with the same text ran the same code on the same settings, so
    /// the verdict reads their difference as the run's noise.
    /// </summary>
    public string? Ran { get; init; }

    /// <summary>Engine rows only: the inference session's creation.</summary>
    public double? CreateSeconds { get; init; }

    /// <summary>Overlap and engine rows: the simulated engine init.</summary>
    public double? InitSeconds { get; init; }

    /// <summary>Overlap rows only: from the start of init to the end of the request's first layer.</summary>
    public double? FirstLayerSeconds { get; init; }

    /// <summary>Cold coldstart rows with <c>--settle</c>: the median wait for free page reporting to settle after the eviction, before the row began.</summary>
    public double? SettleSeconds { get; init; }

    /// <summary>Overlap rows with a prefault only: the sweep's own throughput, its bytes over its elapsed time.</summary>
    public double? SweepGibPerSecond { get; init; }

    /// <summary>Overlap rows: how long the init's threads waited for a core, on average a thread (schedstat's run-queue wait).</summary>
    public double? InitWaitSeconds { get; init; }
}

[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, WriteIndented = true, DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(BenchReport))]
internal sealed partial class BenchJsonContext : JsonSerializerContext;
