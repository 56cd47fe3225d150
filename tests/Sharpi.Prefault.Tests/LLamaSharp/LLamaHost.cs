using System.Globalization;
using LLama;
using LLama.Common;
using LLama.Native;
using Sharpi.Prefault.Samples.LLamaSharp;

namespace Sharpi.Prefault.Tests.LLamaSharp;

/// <summary>What a LLamaSharp host does after the load: greedy decoding from BOS, on one thread (the calling one).</summary>
internal static class LLamaHost
{
    /// <summary>The model's parameters as a host writes them.</summary>
    internal static ModelParams Parameters(string path, LLamaLoadMode mode) => new(path)
    {
        LoadMode = mode,
        ContextSize = 64,
        Threads = 1,
        BatchThreads = 1,
        BatchSize = 64,
        UBatchSize = 64,
    };

    /// <summary>
    /// <paramref name="count"/> tokens by greedy decoding from BOS, and the major faults the decoding thread took. With
    /// one thread, ggml computes on the calling thread, so /proc/thread-self counts the faults of every weight read.
    /// </summary>
    internal static (int[] Tokens, long MajorFaults) Greedy(LLamaWeights weights, string path, int count)
    {
        using LLamaContext context = weights.CreateContext(Parameters(path, LLamaLoadMode.None));
        var batch = new LLamaBatch();
        var tokens = new int[count];
        long faultsBefore = ThreadMajorFaults();
        LLamaToken next = TinyLlamaModel.Bos;
        for (int i = 0; i < count; i++)
        {
            batch.Clear();
            batch.Add(next, i, LLamaSeqId.Zero, true);
            DecodeResult result = context.Decode(batch);
            Assert.Equal(DecodeResult.Ok, result);
            Span<float> logits = context.NativeHandle.GetLogitsIth(0);
            int best = 0;
            for (int t = 1; t < logits.Length; t++)
            {
                if (logits[t] > logits[best])
                {
                    best = t;
                }
            }

            tokens[i] = best;
            next = best;
        }

        return (tokens, ThreadMajorFaults() - faultsBefore);
    }

    /// <summary>Major faults of the calling thread (field 12 of /proc/thread-self/stat).</summary>
    internal static long ThreadMajorFaults()
    {
        string stat = File.ReadAllText("/proc/thread-self/stat");
        string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        return long.Parse(fields[9], CultureInfo.InvariantCulture);
    }
}
