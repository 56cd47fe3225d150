using System.Buffers;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;

namespace Sharpi.Prefault.Cli.Output;

// The JSON contracts of docs/cli.md. Property names come from the camelCase policy and are part of the contract:
// rename a property here and scripts break.

/// <summary>
/// <c>tensors --json</c>: an array with one object per tensor (name, offset, length, dtype, shape, and file for a sharded
/// model), written as it goes, a chunk at a time, so a million-tensor model's listing is never in memory whole.
/// </summary>
internal static class TensorsJson
{
    private const int ChunkBytes = 64 << 10;

    private static readonly JsonWriterOptions Options = new() { Indented = true, Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    public static void Write(TextWriter output, TensorIndex index)
    {
        bool sharded = index.Files.Count > 1;
        var buffer = new ArrayBufferWriter<byte>(ChunkBytes * 2);
        using var json = new Utf8JsonWriter(buffer, Options);
        json.WriteStartArray();
        foreach (TensorInfo t in index.Tensors)
        {
            json.WriteStartObject();
            json.WritePropertyName("name"u8);
            WriteName(json, t.Name);
            json.WriteNumber("offset"u8, t.Offset);
            json.WriteNumber("length"u8, t.Length);
            json.WriteString("dtype"u8, t.DType);
            json.WriteStartArray("shape"u8);
            foreach (long extent in t.Shape)
            {
                json.WriteNumberValue(extent);
            }

            json.WriteEndArray();
            if (sharded)
            {
                json.WriteString("file"u8, t.FilePath);
            }

            json.WriteEndObject();
            if (json.BytesPending + buffer.WrittenCount >= ChunkBytes)
            {
                Drain(output, json, buffer);
            }
        }

        json.WriteEndArray();
        Drain(output, json, buffer);
        output.WriteLine();
    }

    /// <summary>A name as a JSON string.</summary>
    internal static void WriteName(Utf8JsonWriter json, string name)
    {
        if (name.AsSpan().IndexOfAnyInRange('\uDC80', '\uDCFF') < 0)
        {
            json.WriteStringValue(name);
            return;
        }

        var literal = new StringBuilder(name.Length + 16).Append('"');
        foreach (char c in name)
        {
            switch (c)
            {
                case '"' or '\\':
                    literal.Append('\\').Append(c);
                    break;
                case < ' ' or (>= '\uDC80' and <= '\uDCFF'):
                    literal.Append(CultureInfo.InvariantCulture, $"\\u{(int)c:x4}");
                    break;
                default:
                    literal.Append(c);
                    break;
            }
        }

        json.WriteRawValue(literal.Append('"').ToString(), skipInputValidation: true);
    }

    private static void Drain(TextWriter output, Utf8JsonWriter json, ArrayBufferWriter<byte> buffer)
    {
        json.Flush();
        output.Write(Encoding.UTF8.GetString(buffer.WrittenSpan)); // whole tokens only: no character is split
        buffer.ResetWrittenCount();
    }
}

/// <summary>A tensor name as <see cref="TensorsJson"/> writes it: a GGUF name's invalid bytes as <c>\udcNN</c>, never merged.</summary>
internal sealed class TensorNameJsonConverter : JsonConverter<string>
{
    public override string Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) =>
        throw new NotSupportedException("The tool only writes tensor names.");

    public override void Write(Utf8JsonWriter writer, string value, JsonSerializerOptions options) => TensorsJson.WriteName(writer, value);
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
internal sealed record ResidentTensorJson([property: JsonConverter(typeof(TensorNameJsonConverter))] string Name, long Bytes, long ResidentBytes)
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
        Converters = { new LoneSurrogateStringConverter() },
    });

    /// <summary>The same, one document per line (JSON Lines), for the lines <c>keep --json</c> writes as it runs.</summary>
    public static CliJsonContext Lines { get; } = new(new JsonSerializerOptions
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        WriteIndented = false,
        Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
        Converters = { new LoneSurrogateStringConverter() },
    });

    public static void Write<T>(TextWriter output, T value, JsonTypeInfo<T> typeInfo) =>
        output.WriteLine(JsonSerializer.Serialize(value, typeInfo));
}
