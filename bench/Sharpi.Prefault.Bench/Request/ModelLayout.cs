using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>One layer: what every token computes (attention, norms, router, shared experts) and each routed expert's bytes.</summary>
internal sealed record LayerLayout(string Name, IReadOnlyList<ByteRange> Dense, IReadOnlyList<IReadOnlyList<ByteRange>> Experts)
{
    /// <summary>All the layer's bytes: the dense ranges, then each expert's in expert order.</summary>
    internal IEnumerable<ByteRange> Ranges => Dense.Concat(Experts.SelectMany(static e => e));
}

/// <summary>
/// The weights file as an engine sees it: layers in execution order, each with dense bytes and experts. From a real
/// model's tensor table (GGUF <c>blk.N.ffn_*_exps</c> tensors split by expert along their outermost dimension,
/// safetensors <c>...experts.E...</c> tensors grouped by E), or equal slices of a generated file.
/// </summary>
internal sealed record ModelLayout(IReadOnlyList<LayerLayout> Layers, string Source)
{
    private const long SliceAlignment = 4096;

    /// <summary>A generated file: <paramref name="layers"/> x <paramref name="experts"/> equal, page-aligned slices, no dense bytes.</summary>
    internal static ModelLayout EqualSlices(long length, int layers, int experts)
    {
        long slices = (long)layers * experts;
        var result = new List<LayerLayout>(layers);
        for (int l = 0; l < layers; l++)
        {
            var expertRanges = new List<IReadOnlyList<ByteRange>>(experts);
            for (int e = 0; e < experts; e++)
            {
                long index = ((long)l * experts) + e;
                long from = Boundary(index, slices, length);
                long to = Boundary(index + 1, slices, length);
                expertRanges.Add(to > from ? [new ByteRange(from, to - from)] : []);
            }

            result.Add(new LayerLayout(string.Create(CultureInfo.InvariantCulture, $"layer {l}"), [], expertRanges));
        }

        return new ModelLayout(result, string.Create(CultureInfo.InvariantCulture, $"equal slices: {layers} layers x {experts} experts"));
    }

    /// <summary>The layout of a real model from its tensor table, or null when the file is neither GGUF nor safetensors.</summary>
    internal static ModelLayout? FromModel(string path, out string? why)
    {
        TensorIndex index;
        try
        {
            index = TensorIndex.Read(path);
        }
        catch (ModelFormatException e)
        {
            why = e.Message;
            return null;
        }

        why = null;
        var layers = new SortedDictionary<int, Builder>();
        var before = new Builder("embeddings");
        var after = new Builder("output");
        foreach (TensorInfo tensor in index.Tensors)
        {
            string group = TensorIndex.GroupKey(tensor.Name);
            Builder target;
            if (LayerNumber(group) is int number)
            {
                if (!layers.TryGetValue(number, out Builder? layer))
                {
                    layer = new Builder(group);
                    layers.Add(number, layer);
                }

                target = layer;
            }
            else
            {
                target = tensor.Name.Contains("embd", StringComparison.Ordinal) || tensor.Name.Contains("embed", StringComparison.Ordinal) ? before : after;
            }

            target.Add(tensor, index.Format);
        }

        var result = new List<LayerLayout>(layers.Count + 2);
        if (before.HasBytes)
        {
            result.Add(before.Build());
        }

        foreach (Builder layer in layers.Values)
        {
            result.Add(layer.Build());
        }

        if (after.HasBytes)
        {
            result.Add(after.Build());
        }

        int moeLayers = result.Count(static l => l.Experts.Count > 0);
        int maxExperts = result.Count == 0 ? 0 : result.Max(static l => l.Experts.Count);
        string format = index.Format switch
        {
            TensorFormat.Gguf => "GGUF",
            TensorFormat.Safetensors => "safetensors",
            TensorFormat.ShardedSafetensors => "sharded safetensors",
            _ => index.Format.ToString(),
        };
        return new ModelLayout(result, string.Create(CultureInfo.InvariantCulture,
            $"{format} tensor table: {index.Tensors.Count} tensors, {layers.Count} layers, {moeLayers} with up to {maxExperts} routed experts"));
    }

    internal long Bytes => Layers.Sum(static l => l.Ranges.Sum(static r => r.Length));

    private static long Boundary(long index, long slices, long length) =>
        index == slices ? length : (long)((UInt128)(ulong)index * (ulong)length / (ulong)slices) / SliceAlignment * SliceAlignment;

    /// <summary>The layer number of a group key such as <c>blk.12</c> or <c>model.layers.3</c>; null for <c>token_embd</c>, <c>output</c>.</summary>
    private static int? LayerNumber(string group)
    {
        int dot = group.LastIndexOf('.');
        string last = dot < 0 ? group : group[(dot + 1)..];
        return last.Length > 0 && last.All(char.IsAsciiDigit) && int.TryParse(last, NumberStyles.None, CultureInfo.InvariantCulture, out int n) ? n : null;
    }

    /// <summary>Collects one layer's tensors: routed experts by expert number, everything else as dense bytes.</summary>
    private sealed class Builder(string name)
    {
        private readonly List<ByteRange> _dense = [];
        private readonly SortedDictionary<int, List<ByteRange>> _experts = [];

        internal bool HasBytes => _dense.Count > 0 || _experts.Count > 0;

        internal void Add(TensorInfo tensor, TensorFormat format)
        {
            if (tensor.Length == 0)
            {
                return;
            }

            // GGUF stacks a layer's experts in one tensor, experts outermost: ggml lists the outermost dimension last.
            if (format == TensorFormat.Gguf && tensor.Name.Contains("_exps", StringComparison.Ordinal) && tensor.Shape.Count >= 3)
            {
                Split(tensor, tensor.Shape[^1]);
                return;
            }

            int experts = tensor.Name.IndexOf(".experts.", StringComparison.Ordinal);
            if (experts >= 0)
            {
                string rest = tensor.Name[(experts + ".experts.".Length)..];
                string segment = rest.Split('.')[0];
                if (int.TryParse(segment, NumberStyles.None, CultureInfo.InvariantCulture, out int expert))
                {
                    ExpertRanges(expert).Add(new ByteRange(tensor.Offset, tensor.Length));
                    return;
                }

                // Fused safetensors experts ([experts, rows, cols], row-major: outermost first).
                if (tensor.Shape.Count >= 3)
                {
                    Split(tensor, tensor.Shape[0]);
                    return;
                }
            }

            _dense.Add(new ByteRange(tensor.Offset, tensor.Length));
        }

        internal LayerLayout Build()
        {
            var experts = new List<IReadOnlyList<ByteRange>>();
            foreach (List<ByteRange> ranges in _experts.Values)
            {
                experts.Add(ranges);
            }

            return new LayerLayout(name, _dense, experts);
        }

        private void Split(TensorInfo tensor, long count)
        {
            if (count < 1 || tensor.Length % count != 0)
            {
                _dense.Add(new ByteRange(tensor.Offset, tensor.Length));
                return;
            }

            long each = tensor.Length / count;
            for (int e = 0; e < count; e++)
            {
                ExpertRanges(e).Add(new ByteRange(tensor.Offset + (e * each), each));
            }
        }

        private List<ByteRange> ExpertRanges(int expert)
        {
            if (!_experts.TryGetValue(expert, out List<ByteRange>? ranges))
            {
                ranges = [];
                _experts.Add(expert, ranges);
            }

            return ranges;
        }
    }
}
