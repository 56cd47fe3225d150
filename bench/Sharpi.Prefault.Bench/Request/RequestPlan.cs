using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The first request, laid out before any row runs so every row and repetition does the same work: steps in
/// execution order (one per layer; the threads meet at a barrier after each, as an engine's workers do after each
/// op), each cut into chunks of at most <see cref="ChunkBytes"/> that the threads take in turn.
/// </summary>
internal sealed class RequestPlan
{
    internal const long ChunkBytes = 2 * 1024 * 1024;

    private RequestPlan(RequestShape shape, IReadOnlyList<ByteRange[]> steps, string description)
    {
        Shape = shape;
        Steps = steps;
        Description = description;
        long bytes = 0;
        foreach (ByteRange[] step in steps)
        {
            foreach (ByteRange chunk in step)
            {
                bytes += chunk.Length;
            }
        }

        Bytes = bytes;
    }

    internal RequestShape Shape { get; }

    /// <summary>True: one load per page (no compute). False: every byte is summed.</summary>
    internal bool TouchesPagesOnly => Shape == RequestShape.Pages;

    internal IReadOnlyList<ByteRange[]> Steps { get; }

    /// <summary>Bytes the request covers (summed, or for <see cref="RequestShape.Pages"/> the pages it touches).</summary>
    internal long Bytes { get; }

    /// <summary>One line for the report: the shape, what it reads and how much.</summary>
    internal string Description { get; }

    /// <summary>Today's first pass: one byte per page of [0, <paramref name="length"/>).</summary>
    internal static RequestPlan Pages(long length) =>
        new(RequestShape.Pages, [Chunks([new ByteRange(0, length)])], "pages: one byte per page of the whole file, no compute");

    /// <summary>One byte per page of each layer in turn: the fault cost alone, walked layer by layer (the overlap command's pass).</summary>
    internal static RequestPlan LayerPages(ModelLayout layout) =>
        new(RequestShape.Pages, WholeLayers(layout), string.Create(CultureInfo.InvariantCulture,
            $"pages: one byte per page of each layer in turn, no compute ({layout.Source})"));

    internal static RequestPlan Create(RequestSpec spec, ModelLayout layout, long fileLength)
    {
        switch (spec.Shape)
        {
            case RequestShape.Pages:
                return Pages(fileLength);
            case RequestShape.Dense:
            {
                var plan = new RequestPlan(RequestShape.Dense, WholeLayers(layout), string.Empty);
                return plan.With(string.Create(CultureInfo.InvariantCulture,
                    $"dense: every tensor in layer order, every byte summed ({Sizes.Format(plan.Bytes)}; {layout.Source})"));
            }

            default:
                return Moe(spec, layout);
        }
    }

    /// <summary>
    /// A prefill of <see cref="RequestSpec.Tokens"/> tokens: per layer, the dense bytes once and each expert that any
    /// token picked once (a batched matmul reads an expert once for all the tokens routed to it).
    /// </summary>
    private static RequestPlan Moe(RequestSpec spec, ModelLayout layout)
    {
        var random = new Random(spec.Seed);
        var steps = new List<ByteRange[]>(layout.Layers.Count);
        int picked = 0;
        int experts = 0;
        foreach (LayerLayout layer in layout.Layers)
        {
            var ranges = new List<ByteRange>(layer.Dense);
            int count = layer.Experts.Count;
            if (count > 0)
            {
                bool[] chosen = PickExperts(random, count, Math.Min(spec.TopK, count), spec.Tokens);
                for (int e = 0; e < count; e++)
                {
                    if (chosen[e])
                    {
                        ranges.AddRange(layer.Experts[e]);
                        picked++;
                    }
                }

                experts += count;
            }

            steps.Add(Chunks(ranges));
        }

        var plan = new RequestPlan(RequestShape.Moe, steps, string.Empty);
        return plan.With(string.Create(CultureInfo.InvariantCulture,
            $"moe: {spec.Tokens} tokens, top-{spec.TopK} experts per layer per token (seed {spec.Seed}): {picked:N0} of {experts:N0} experts, " +
            $"{Sizes.Format(plan.Bytes)} of {Sizes.Format(layout.Bytes)} summed ({layout.Source})"));
    }

    /// <summary>The union over tokens of each token's top-k distinct experts (a partial Fisher-Yates shuffle per token).</summary>
    private static bool[] PickExperts(Random random, int count, int topK, int tokens)
    {
        bool[] chosen = new bool[count];
        int[] order = new int[count];
        for (int t = 0; t < tokens; t++)
        {
            for (int i = 0; i < count; i++)
            {
                order[i] = i;
            }

            for (int k = 0; k < topK; k++)
            {
                int j = random.Next(k, count);
                (order[k], order[j]) = (order[j], order[k]);
                chosen[order[k]] = true;
            }
        }

        return chosen;
    }

    /// <summary>Every layer whole, in order: one step per layer over all its tensors.</summary>
    private static List<ByteRange[]> WholeLayers(ModelLayout layout) => [.. layout.Layers.Select(static layer => Chunks(layer.Ranges))];

    private static ByteRange[] Chunks(IEnumerable<ByteRange> ranges)
    {
        var chunks = new List<ByteRange>();
        foreach (ByteRange range in ranges)
        {
            for (long offset = range.Offset; offset < range.End; offset += ChunkBytes)
            {
                chunks.Add(new ByteRange(offset, Math.Min(ChunkBytes, range.End - offset)));
            }
        }

        return [.. chunks];
    }

    private RequestPlan With(string description) => new(Shape, Steps, description);

    /// <summary>Step <paramref name="step"/> alone, as a plan: one layer of the request.</summary>
    internal RequestPlan Step(int step) => new(Shape, [Steps[step]], Description);
}
