using Sharpi.Prefault.Cli;
using Sharpi.Prefault.Tests.Models;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// Seeded random command lines over the paths operators get wrong (missing, directories, FIFOs, empty, truncated and
/// corrupt models, indexes with bad shards, NUL characters, control characters): never a stack trace or an internal
/// error, an exit code from the contract, and one valid JSON document on stdout whenever --json was asked for.
/// </summary>
/// <remarks>
/// The run is the same every time (seed <see cref="DefaultSeed"/>); <c>SHARPI_FUZZ_SEED</c> runs another sequence. A
/// failure names the seed, the iteration and the command line, which replays it alone.
/// </remarks>
public sealed class CliFuzzTests
{
    private const int DefaultSeed = 20261122;
    private const int Iterations = 200;

    private static int Seed =>
        int.TryParse(Environment.GetEnvironmentVariable("SHARPI_FUZZ_SEED"), System.Globalization.NumberStyles.Integer, System.Globalization.CultureInfo.InvariantCulture, out int s)
            ? s
            : DefaultSeed;

    private static readonly string[] Commands = ["touch", "resident", "evict", "tensors", "lock"];
    private static readonly string[] Globs = ["blk.*", "*", "nope.*", "blk.1.?ttn_q.weight", "a.weight", "\u001b[31m*", "**", "["];

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task RandomCommandLines_KeepTheContract()
    {
        using var model = new CliModelFiles();
        string[] paths = Paths(model);
        int seed = Seed;
        var random = new Random(seed);

        for (int i = 0; i < Iterations; i++)
        {
            string command = Commands[random.Next(Commands.Length)];
            List<string> args = [command];
            int files = command == "tensors" ? 1 : 1 + random.Next(3);
            for (int f = 0; f < files; f++)
            {
                args.Add(paths[random.Next(paths.Length)]);
            }

            bool json = random.Next(2) == 0;
            if (json)
            {
                args.Add("--json");
            }

            AddRandomFlags(random, command, args, model.Directory);
            string line = string.Join(' ', args.Select(a => $"'{a}'"));

            // lock holds until cancelled: a token that fires soon stands in for Ctrl+C.
            using var stop = new CancellationTokenSource(command == "lock" ? TimeSpan.FromMilliseconds(100) : Timeout.InfiniteTimeSpan);
            using var output = new StringWriter();
            using var error = new StringWriter();
            Task<int> run = CliApp.RunAsync([.. args], TextWriter.Synchronized(output), TextWriter.Synchronized(error), stop.Token);
            Task first = await Task.WhenAny(run, Task.Delay(TimeSpan.FromSeconds(20)));
            Assert.True(first == run, $"seed {seed}, iteration {i} hung: {line}");
            int code = await run;
            string err = error.ToString();
            string stdout = output.ToString();

            Assert.True(!err.Contains("   at ", StringComparison.Ordinal) && !err.Contains("internal error", StringComparison.Ordinal),
                $"seed {seed}, iteration {i}: {line}\n{err}");
            Assert.True(code is 0 or 1 or 2 || (command == "lock" && code == 130), $"seed {seed}, iteration {i}: exit {code}: {line}\n{err}");
            if (json && code != 2 && !args.Contains("--help"))
            {
                try
                {
                    using JsonDocument _ = JsonDocument.Parse(stdout);
                }
                catch (JsonException e)
                {
                    Assert.Fail($"seed {seed}, iteration {i}: stdout is not one JSON document ({e.Message}): {line}\n{stdout}\n{err}");
                }
            }
        }
    }

    private static void AddRandomFlags(Random random, string command, List<string> args, string directory)
    {
        int count = random.Next(4);
        for (int i = 0; i < count; i++)
        {
            switch (random.Next(8))
            {
                case 0 when command != "tensors":
                    args.Add("-r");
                    break;
                case 1 when command != "tensors":
                    args.AddRange(["--tensor", Globs[random.Next(Globs.Length)]]);
                    break;
                case 2 when command != "tensors":
                    args.AddRange(["--exclude", Globs[random.Next(Globs.Length)]]);
                    break;
                case 3 when command == "touch":
                    args.AddRange(["--gate", random.Next(3) switch { 0 => "always", 1 => "fits", _ => "sometimes" }]);
                    break;
                case 4 when command == "lock":
                    args.AddRange(["--pidfile", random.Next(2) == 0 ? Path.Combine(directory, "lock.pid") : directory]);
                    break;
                case 5:
                    args.Add(random.Next(2) == 0 ? "--bogus" : "-");
                    break;
                case 6:
                    args.Add("--help");
                    break;
                default:
                    break;
            }
        }
    }

    private static string[] Paths(CliModelFiles model)
    {
        string gguf = model.Gguf();
        byte[] ggufBytes = File.ReadAllBytes(gguf);
        string dir = model.Directory;
        Directory.CreateDirectory(Path.Combine(dir, "sub"));
        Directory.CreateDirectory(Path.Combine(dir, "dirshard.safetensors"));
        model.Fifo("fifo.gguf");
        model.Fifo("fifo-shard.safetensors");
        string sharded = model.Sharded();

        return
        [
            gguf,
            sharded,
            model.Safetensors(),
            Path.Combine(dir, "missing.gguf"),
            Path.Combine(dir, "missing", "deeper.bin"),
            dir,
            Path.Combine(dir, "sub"),
            Path.Combine(dir, "fifo.gguf"),
            model.Write("empty.gguf", []),
            model.Write("empty.bin", []),
            model.Write("truncated.gguf", ggufBytes[..(ggufBytes.Length / 3)]),
            model.Write("header-only.gguf", ggufBytes[..64]),
            model.Write("noise.bin", [.. Enumerable.Range(0, 10_000).Select(i => (byte)(i * 31))]),
            model.Write("GGUF-magic-noise", [.. "GGUF"u8, .. new byte[100]]),
            model.Write("config.json", "{\"hidden_size\": 64}"),
            model.Write("garbage.index.json", "{\"weight_map\": [1, 2"),
            model.WriteIndex([], "empty.index.json"),
            model.WriteIndex(["\"a.weight\": \"nope.safetensors\""], "missing-shard.index.json"),
            model.WriteIndex(["\"a.weight\": \"fifo-shard.safetensors\""], "fifo-shard.index.json"),
            model.WriteIndex(["\"a.weight\": \"dirshard.safetensors\""], "dir-shard.index.json"),
            model.WriteIndex(["\"a.weight\": \"nul\\u0000.safetensors\""], "nul-shard.index.json"),
            model.WriteIndex(["\"a.weight\": \"../../../etc/passwd\""], "escape.index.json"),
            model.Write("evil\u001b[2J.gguf", new GgufBuilder().F32("\u001b]0;x\u0007", 4).Build()),
            "nul\0path.gguf",
            string.Empty,
        ];
    }
}
