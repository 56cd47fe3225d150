using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;

namespace Sharpi.Prefault.Cli.Output;

// The JSON contracts of docs/cli.md. Property names come from the camelCase policy and are part of the contract:
// rename a property here and scripts break.

/// <summary>One row of <c>tensors --json</c>.</summary>
internal sealed record TensorJson(string Name, long Offset, long Length, string Dtype, IReadOnlyList<long> Shape)
{
    /// <summary>The shard holding the tensor; only for sharded models.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? File { get; init; }
}

/// <summary><c>touch --json</c>.</summary>
internal sealed record TouchJson(
    bool Ran,
    long Bytes,
    long BytesAlreadyResident,
    double Seconds,
    double GibPerSecond,
    string Method,
    string Reason,
    IReadOnlyList<TouchFileJson> Files)
{
    public bool Partial { get; init; }

    public bool Cancelled { get; init; }

    public long BytesRequested { get; init; }

    public int Threads { get; init; }

    public IReadOnlyList<FailureJson> Failures { get; init; } = [];

    /// <summary>Of the bytes, those resident when the run ended (measured after it, not assumed).</summary>
    public long BytesResidentAfter { get; init; }

    /// <summary>Bytes whose residency before the run the kernel would not tell (a file this user cannot write); only when there are some.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingDefault)]
    public long BytesAlreadyResidentUnknown { get; init; }

    /// <summary>Bytes whose residency after the run the kernel would not tell; only when there are some.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingDefault)]
    public long BytesResidentAfterUnknown { get; init; }
}

/// <summary>A file of <c>touch --json</c>: what was asked of it.</summary>
internal sealed record TouchFileJson(string File, long Bytes,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] int? Tensors);

/// <summary>A region or file that failed.</summary>
internal sealed record FailureJson(string Name, string Message);

/// <summary><c>resident --json</c>.</summary>
internal sealed record ResidentJson(IReadOnlyList<ResidentFileJson> Files);

/// <summary>
/// A file of <c>resident --json</c>: the whole file, and each selected tensor (none for plain files); pages as
/// <c>fincore</c> counts them (the system page size; the last partial page counts whole).
/// </summary>
internal sealed record ResidentFileJson(string File, long Bytes, long ResidentBytes, IReadOnlyList<ResidentTensorJson> Tensors)
{
    public long Pages { get; init; }

    public long ResidentPages { get; init; }

    /// <summary>Bytes whose residency the kernel would not tell (a file this user cannot write); only when there are some.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingDefault)]
    public long UnknownBytes { get; init; }
}

/// <summary>A tensor of <c>resident --json</c>.</summary>
internal sealed record ResidentTensorJson(string Name, long Bytes, long ResidentBytes)
{
    /// <summary>Bytes whose residency the kernel would not tell; only when there are some.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingDefault)]
    public long UnknownBytes { get; init; }
}

/// <summary>
/// <c>lock --json</c>, written once when the lock ends (or fails): the selection's bytes asked for and locked (never
/// more than asked), and the whole pages locked (mlock's unit, what VmLck counts; a selection that ends mid-page locks
/// the whole page).
/// </summary>
internal sealed record LockJson(long LockedBytes, long RequestedBytes, long LockedPageBytes, bool Unlocked, IReadOnlyList<FailureJson> Failures);

/// <summary><c>evict --json</c>.</summary>
internal sealed record EvictJson(IReadOnlyList<EvictFileJson> Files);

/// <summary>A file of <c>evict --json</c>: the bytes asked to drop, in how many ranges, and what stayed resident.</summary>
internal sealed record EvictFileJson(string File, long Bytes, long EvictedBytes, int Ranges, long ResidentBytesAfter)
{
    /// <summary>Of the asked bytes, those whose residency the kernel would not tell (before or after); only when there are some.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingDefault)]
    public long UnknownBytes { get; init; }
}

/// <summary><c>resident --min --json</c>: the probe's verdict, and each file's figure against it.</summary>
internal sealed record ResidentProbeJson(double MinPercent, bool Met, IReadOnlyList<ResidentProbeFileJson> Files, IReadOnlyList<FailureJson> Failures);

/// <summary>A file of <c>resident --min --json</c>: the bytes measured (the file, or its selected tensors) and how many were resident.</summary>
internal sealed record ResidentProbeFileJson(string File, long Bytes, long ResidentBytes, double Percent, bool Met)
{
    /// <summary>Bytes whose residency the kernel would not tell (not in residentBytes or percent); only when there are some.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingDefault)]
    public long UnknownBytes { get; init; }
}

/// <summary>The first line of <c>keep --json</c>: what it keeps warm, and how often it looks.</summary>
internal sealed record KeepStartJson(string Event, double IntervalSeconds, string Gate, bool KillSwitch, IReadOnlyList<TouchFileJson> Files, IReadOnlyList<FailureJson> Failures)
{
    /// <summary><c>held</c> (each file mapped for keep's life) or <c>look</c> (mapped per look).</summary>
    public string Mapping { get; init; } = "held";
}

/// <summary>A line of <c>keep --json</c> per look: what had left the cache, and what was read back.</summary>
internal sealed record KeepLookJson(
    string Event,
    long Look,
    DateTimeOffset Time,
    long Bytes,
    long ResidentBytes,
    long MissingBytes,
    int Ranges,
    long RestoredBytes,
    double Seconds,
    double GibPerSecond,
    bool Ran,
    bool Partial,
    string Reason,
    IReadOnlyList<FailureJson> Failures)
{
    /// <summary>Of the bytes, those whose residency the kernel would not tell (counted as missing, so swept); only when there are some.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingDefault)]
    public long UnknownBytes { get; init; }

    /// <summary>Of the bytes, those resident when the look ended: measured again after its reads, never assumed from them.</summary>
    public long ResidentAfterBytes { get; init; }
}

/// <summary>The last line of <c>keep --json</c>, written when a signal ends it.</summary>
internal sealed record KeepStopJson(string Event, long Looks, long RestoredBytes, IReadOnlyList<FailureJson> Failures);

/// <summary>The document every <c>--json</c> command writes when it could not produce its own (bad file, nothing to list).</summary>
internal sealed record ErrorJson(IReadOnlyList<FailureJson> Errors);

/// <summary>Source-generated serializers: no reflection, so the NativeAOT binary writes the same JSON.</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, WriteIndented = true)]
[JsonSerializable(typeof(List<TensorJson>))]
[JsonSerializable(typeof(TouchJson))]
[JsonSerializable(typeof(ResidentJson))]
[JsonSerializable(typeof(LockJson))]
[JsonSerializable(typeof(EvictJson))]
[JsonSerializable(typeof(ErrorJson))]
[JsonSerializable(typeof(ResidentProbeJson))]
[JsonSerializable(typeof(KeepStartJson))]
[JsonSerializable(typeof(KeepLookJson))]
[JsonSerializable(typeof(KeepStopJson))]
internal sealed partial class CliJsonContext : JsonSerializerContext
{
    /// <summary>
    /// The context the commands write with: camelCase and indented, as generated, but with '+', quotes in reasons and non-ASCII paths
    /// written as they are (stdout is not HTML; the default encoder would write \u002B).
    /// </summary>
    public static CliJsonContext Output { get; } = new(new JsonSerializerOptions
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        WriteIndented = true,
        Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
    });

    /// <summary>The same, one document per line (JSON Lines), for the lines <c>keep --json</c> writes as it runs.</summary>
    public static CliJsonContext Lines { get; } = new(new JsonSerializerOptions
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        WriteIndented = false,
        Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
    });

    public static void Write<T>(TextWriter output, T value, JsonTypeInfo<T> typeInfo) =>
        output.WriteLine(JsonSerializer.Serialize(value, typeInfo));
}
