using System.Diagnostics;
using Sharpi.Prefault.Samples.OnnxRuntime;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The ONNX model the <c>engine</c> command loads: <see cref="MatMulChainModel"/>'s chain of <c>dim x dim</c> float32
/// MatMul layers, the weights in an external data file beside the model. Written into the bench's data folder on first
/// use, reused while the weights have the size the layers ask for.
/// </summary>
/// <param name="ModelPath">The <c>.onnx</c> file (the graph; a few KiB).</param>
/// <param name="Data">The external data: the weights ONNX Runtime maps or copies, the file every row makes cold.</param>
internal sealed record EngineModel(string ModelPath, WeightsFile Data, int Layers, int Dim)
{
    /// <summary>4096 x 4096 float32: 64 MiB per layer.</summary>
    internal const int DefaultDim = 4096;

    /// <summary>One line for the report.</summary>
    internal string Description =>
        $"{Layers} MatMul layers of {Dim} x {Dim} float32 ({Sizes.Format(Data.Length)} of external data, each tensor 64 KiB-aligned), input [1, {Dim}]";

    /// <summary>Layers of <see cref="DefaultDim"/> closest to <paramref name="size"/> bytes (at least one).</summary>
    internal static int LayersFor(long size) => (int)Math.Clamp(Math.Round(size / (double)MatMulChainModel.TensorBytes(DefaultDim)), 1, int.MaxValue);

    /// <summary>The model of <paramref name="layers"/> x <paramref name="dim"/> in <paramref name="directory"/>: reused when complete, written otherwise.</summary>
    internal static EngineModel OpenOrCreate(string directory, int layers, int dim, ProgressLine progress)
    {
        Directory.CreateDirectory(directory);
        string name = Path.Combine(Path.GetFullPath(directory), $"sharpi-bench-matmul-{layers}x{dim}");
        string modelPath = name + ".onnx";
        string dataPath = name + ".onnx.data";
        long bytes = MatMulChainModel.DataBytes(layers, dim);
        var model = new EngineModel(modelPath, new WeightsFile(dataPath, bytes, Generated: true), layers, dim);
        var data = new FileInfo(dataPath);
        if (File.Exists(modelPath) && data.Exists && data.Length == bytes)
        {
            progress.Note($"Reusing {modelPath} ({Sizes.Format(bytes)} of weights).");
            return model;
        }

        WeightsFile.EnsureFreeSpace(directory, bytes, data.Exists ? data.Length : 0);

        // The model is written last, so a run stopped while the weights are written leaves no model: the next run writes both again.
        File.Delete(modelPath);
        long started = Stopwatch.GetTimestamp();
        progress.Begin($"writing {model.Description} to {dataPath}");
        MatMulChainModel.Write(modelPath, dataPath, layers, dim);

        // Written back to the disk, or eviction (which drops clean pages only) could not make the weights cold.
        using (var stream = new FileStream(dataPath, FileMode.Open, FileAccess.ReadWrite, FileShare.Read))
        {
            stream.Flush(flushToDisk: true);
        }

        progress.Note($"Wrote {modelPath} and its weights ({Sizes.Format(bytes)}) in {Stopwatch.GetElapsedTime(started).TotalSeconds:0.0} s.");
        return model;
    }
}
