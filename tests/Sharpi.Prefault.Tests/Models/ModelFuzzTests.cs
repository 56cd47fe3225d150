using System.Globalization;
using System.Text;

namespace Sharpi.Prefault.Tests.Models;

/// <summary>
/// Deterministic fuzzing of the model readers: seeded mutations (bit flips, truncations, huge length fields,
/// splices, inserted and deleted bytes, numbers swapped in JSON) of valid GGUF and safetensors files and
/// safetensors indexes. Every case must either parse to tensors inside the file or throw
/// <see cref="ModelFormatException"/>; anything else fails the test and prints the case as base64.
/// </summary>
/// <remarks>
/// The default is <see cref="DefaultIterations"/> cases per format (a few seconds). For a longer run set
/// <c>SHARPI_FUZZ_ITERATIONS</c> (cases per format) and optionally <c>SHARPI_FUZZ_SEED</c> (the run's seed, default
/// <see cref="DefaultSeed"/>), for example
/// <c>SHARPI_FUZZ_ITERATIONS=200000 dotnet test -c Release --filter "FullyQualifiedName~ModelFuzzTests"</c>.
/// Case <c>i</c> of a run draws from its own <see cref="Random"/>, seeded with <see cref="CaseSeed"/> of the run's seed
/// plus <c>i</c> and the format (a fixed FNV-1a hash of its name, never <c>string.GetHashCode</c>, which changes with
/// every process). So a run is the same on every machine, and one case replays alone: a failure prints the
/// <c>SHARPI_FUZZ_SEED=... SHARPI_FUZZ_ITERATIONS=1</c> that runs just that case (as case 0) again.
/// Keep any input that fails as a file under <c>Models/Corpus/</c>: <see cref="Corpus_EveryKeptInput_ParsesOrThrowsFormatException"/>
/// replays them all.
/// </remarks>
public sealed class ModelFuzzTests(ITestOutputHelper output)
{
    private const int DefaultIterations = 4000;
    private const int DefaultSeed = 20240611;

    private static int Iterations =>
        int.TryParse(Environment.GetEnvironmentVariable("SHARPI_FUZZ_ITERATIONS"), NumberStyles.Integer, CultureInfo.InvariantCulture, out int n) && n > 0
            ? n
            : DefaultIterations;

    private static int Seed =>
        int.TryParse(Environment.GetEnvironmentVariable("SHARPI_FUZZ_SEED"), NumberStyles.Integer, CultureInfo.InvariantCulture, out int s)
            ? s
            : DefaultSeed;

    [Fact]
    public void Fuzz_MutatedGgufFiles_ParseOrThrowFormatException()
    {
        byte[][] seeds =
        [
            new GgufBuilder { Version = 3 }.String("general.architecture", "llama").UInt32("general.alignment", 64)
                .StringArray("tokenizer.ggml.tokens", "<s>", "</s>", "a", "b").F32("token_embd.weight", 8, 4).F32("blk.0.attn_q.weight", 4, 4).Build(),
            new GgufBuilder { Version = 2 }.String("general.name", "m").Tensor("blk.0.ffn_up_exps.weight", 12, [256, 2], 0, 288)
                .Tensor("blk.0.attn_k.weight", 8, [64, 1], 320, 68).Build(),
            new GgufBuilder().Kv("nested", 9, [.. GgufBuilder.U32(9), .. GgufBuilder.U64(1), .. GgufBuilder.U32(4), .. GgufBuilder.U64(2), 1, 0, 0, 0, 2, 0, 0, 0])
                .F32("x", 2).Build(),
        ];

        Run("gguf", seeds, bytes => Check(bytes, "fuzz.gguf"));
    }

    [Fact]
    public void Fuzz_MutatedSafetensorsFiles_ParseOrThrowFormatException()
    {
        byte[][] seeds =
        [
            new SafetensorsBuilder().Metadata().Tensor("model.layers.0.w", "BF16", [4, 2], 2).Tensor("model.layers.0.b", "F32", [2], 4)
                .Tensor("lm_head.weight", "F8_E4M3", [3, 3], 1).Build(),
            new SafetensorsBuilder().Raw("a", "{\"dtype\":\"F4\",\"shape\":[4,4],\"data_offsets\":[0,8]}", 8)
                .Raw("b", "{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[8,16]}", 8).Build(),
        ];

        Run("safetensors", seeds, bytes => Check(bytes, "fuzz.safetensors"));
    }

    [Fact]
    public void Fuzz_MutatedSafetensorsIndexes_ParseOrThrowFormatException()
    {
        byte[][] seeds =
        [
            Encoding.UTF8.GetBytes("{\"metadata\":{\"total_size\":1024},\"weight_map\":{\"model.layers.0.w\":\"model-00001-of-00002.safetensors\",\"lm_head.weight\":\"model-00002-of-00002.safetensors\"}}"),
        ];

        Run("index", seeds, bytes => SafetensorsIndexReader.Parse(bytes, "fuzz.index.json"), iterations: Math.Max(1, Iterations / 3));
    }

    [Fact]
    public void Corpus_EveryKeptInput_ParsesOrThrowsFormatException()
    {
        string corpus = Path.Combine(ModelTestPaths.SourceDirectory(), "Corpus");
        foreach (string file in Directory.EnumerateFiles(corpus).Where(f => !f.EndsWith(".md", StringComparison.Ordinal)))
        {
            byte[] bytes = File.ReadAllBytes(file);
            Exception? e = Record.Exception(() =>
            {
                if (file.EndsWith(".json", StringComparison.Ordinal))
                {
                    SafetensorsIndexReader.Parse(bytes, file);
                }
                else
                {
                    Check(bytes, file);
                }
            });

            Assert.True(e is null or ModelFormatException, $"{Path.GetFileName(file)}: {e}");
        }
    }

    private static void Check(byte[] bytes, string name)
    {
        using var stream = new MemoryStream(bytes, writable: false);
        TensorIndex index = TensorIndex.Read(stream, name);
        foreach (TensorInfo t in index.Tensors)
        {
            if (t.Offset < 0 || t.Length < 0 || t.Offset > bytes.Length || t.Length > bytes.Length - t.Offset)
            {
                throw new InvalidOperationException($"tensor '{t.Name}' [{t.Offset}, +{t.Length}) escapes a {bytes.Length}-byte file");
            }
        }
    }

    private void Run(string format, byte[][] seeds, Action<byte[]> parse, int? iterations = null)
    {
        foreach (byte[] seed in seeds)
        {
            parse(seed); // the seeds themselves are valid
        }

        int cases = iterations ?? Iterations;
        int runSeed = Seed;
        int parsed = 0;
        var failures = new List<string>();
        for (int i = 0; i < cases; i++)
        {
            var random = new Random(CaseSeed(unchecked(runSeed + i), format));
            byte[] input = Mutate(random, seeds[random.Next(seeds.Length)], seeds);
            try
            {
                parse(input);
                parsed++;
            }
            catch (ModelFormatException)
            {
            }
#pragma warning disable CA1031 // The point of the test: any other exception is a finding to report, not to rethrow.
            catch (Exception e)
#pragma warning restore CA1031
            {
                failures.Add($"case {i} (replay it alone: SHARPI_FUZZ_SEED={unchecked(runSeed + i)} SHARPI_FUZZ_ITERATIONS=1): " +
                    $"{e.GetType().Name}: {e.Message}\n  input (base64): {Convert.ToBase64String(input)}");
            }
        }

        output.WriteLine($"{format}: seed {runSeed}, {cases} cases, {parsed} parsed, {cases - parsed - failures.Count} rejected, {failures.Count} failed");
        Assert.True(failures.Count == 0, $"{format}, SHARPI_FUZZ_SEED={runSeed}: {failures.Count} of {cases} cases failed\n" + string.Join('\n', failures.Take(5)));
    }

    /// <summary>The seed of one case: <paramref name="caseSeed"/> (the run's seed plus the case number) mixed with a stable hash of the format's name.</summary>
    private static int CaseSeed(int caseSeed, string format)
    {
        uint hash = 2166136261; // FNV-1a: the same on every run and machine, unlike string.GetHashCode
        foreach (char c in format)
        {
            hash = (hash ^ c) * 16777619;
        }

        return caseSeed ^ (int)hash;
    }

    private static byte[] Mutate(Random random, byte[] seed, byte[][] seeds)
    {
        var bytes = new List<byte>(seed);
        int rounds = 1 + random.Next(3);
        for (int r = 0; r < rounds && bytes.Count > 0; r++)
        {
            int at = random.Next(bytes.Count);
            switch (random.Next(8))
            {
                case 0: // flip a bit
                    bytes[at] ^= (byte)(1 << random.Next(8));
                    break;
                case 1: // set a byte to a boundary value
                    bytes[at] = (byte)(random.Next(4) switch { 0 => 0, 1 => 0xFF, 2 => 0x7F, _ => 0x80 });
                    break;
                case 2: // truncate
                    bytes.RemoveRange(at, bytes.Count - at);
                    break;
                case 3: // overwrite 8 bytes with a huge or boundary length
                    ulong value = random.Next(6) switch
                    {
                        0 => ulong.MaxValue,
                        1 => (ulong)long.MaxValue,
                        2 => 1UL << (32 + random.Next(31)),
                        3 => uint.MaxValue,
                        4 => (ulong)seed.Length,
                        _ => (ulong)random.Next(256),
                    };
                    byte[] field = BitConverter.GetBytes(value);
                    for (int k = 0; k < 8 && at + k < bytes.Count; k++)
                    {
                        bytes[at + k] = field[k];
                    }

                    break;
                case 4: // splice in a chunk of another (or the same) seed
                    byte[] donor = seeds[random.Next(seeds.Length)];
                    int from = random.Next(donor.Length);
                    int count = random.Next(Math.Min(64, donor.Length - from) + 1);
                    bytes.InsertRange(at, donor.AsSpan(from, count).ToArray());
                    break;
                case 5: // delete a run
                    bytes.RemoveRange(at, Math.Min(bytes.Count - at, 1 + random.Next(16)));
                    break;
                case 6: // duplicate a run in place
                    int len = Math.Min(bytes.Count - at, 1 + random.Next(32));
                    bytes.InsertRange(at, bytes.GetRange(at, len));
                    break;
                default: // replace an ASCII digit run with a huge or negative number (hits JSON shapes and offsets)
                    int digit = bytes.FindIndex(at, b => b is >= (byte)'0' and <= (byte)'9');
                    if (digit >= 0)
                    {
                        int end = digit;
                        while (end < bytes.Count && bytes[end] is >= (byte)'0' and <= (byte)'9')
                        {
                            end++;
                        }

                        string number = random.Next(4) switch
                        {
                            0 => "18446744073709551616",
                            1 => "9223372036854775807",
                            2 => "-1",
                            _ => "4294967296",
                        };
                        bytes.RemoveRange(digit, end - digit);
                        bytes.InsertRange(digit, Encoding.ASCII.GetBytes(number));
                    }

                    break;
            }
        }

        return [.. bytes];
    }
}
