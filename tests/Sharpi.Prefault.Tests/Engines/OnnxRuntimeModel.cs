using Microsoft.ML.OnnxRuntime;
using Microsoft.ML.OnnxRuntime.Tensors;
using Sharpi.Prefault.Samples.OnnxRuntime;

namespace Sharpi.Prefault.Tests.Engines;

/// <summary>
/// A small ONNX model (MatMul layers, 64 KiB-aligned external data) in its own temp folder, and sessions over it as a
/// memory-conscious host creates them: prepacking off, so ONNX Runtime maps each initializer itself and its kernels
/// read the weights from those mappings; one intra-op thread, so an inference runs on the calling thread and
/// getrusage(RUSAGE_THREAD) sees its page faults.
/// </summary>
internal sealed class OnnxRuntimeModel : IDisposable
{
    internal const int Layers = 4;
    internal const int Dim = 1024;

    private readonly string _folder;

    internal OnnxRuntimeModel()
    {
        _folder = Directory.CreateTempSubdirectory("sharpi-onnx-").FullName;
        ModelPath = Path.Combine(_folder, "model.onnx");
        DataPath = Path.Combine(_folder, "model.onnx.data");
        MatMulChainModel.Write(ModelPath, DataPath, Layers, Dim);

        // Written pages are dirty until they reach the disk, and an eviction leaves dirty pages in place.
        using var data = new FileStream(DataPath, FileMode.Open, FileAccess.ReadWrite);
        data.Flush(flushToDisk: true);
    }

    internal string ModelPath { get; }

    internal string DataPath { get; }

    internal static long InitializerBytes => Layers * MatMulChainModel.TensorBytes(Dim);

    internal InferenceSession CreateSession(bool prepacking = false)
    {
        using var options = new SessionOptions { IntraOpNumThreads = 1, InterOpNumThreads = 1 };
        if (!prepacking)
        {
            options.AddSessionConfigEntry("session.disable_prepacking", "1");
        }

        return new InferenceSession(ModelPath, options);
    }

    /// <summary>One inference on the calling thread; the output's bytes.</summary>
    internal static float[] Infer(InferenceSession session)
    {
        var input = new DenseTensor<float>(MatMulChainModel.Input(Dim), [1, Dim]);
        using IDisposableReadOnlyCollection<DisposableNamedOnnxValue> outputs =
            session.Run([NamedOnnxValue.CreateFromTensor(MatMulChainModel.InputName, input)]);
        return outputs.Single().AsTensor<float>().ToArray();
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);
}
