using LLama.Native;
using Sharpi.Prefault.LLamaSharp;
using Sharpi.Prefault.Tests.Models;

namespace Sharpi.Prefault.Tests.LLamaSharp;

/// <summary>
/// llama.cpp's repack lines name tensors by bytes, which LLamaSharp hands over decoded with U+FFFD; the companion finds
/// the index's name for them, or none where two tensors read alike.
/// </summary>
public sealed class ReportedNamesTests() : ModelFileTests("model.gguf")
{
    private static readonly byte[] NameFF = [.. "blk."u8, 0xFF, .. ".w"u8];
    private static readonly byte[] NameFE = [.. "blk."u8, 0xFE, .. ".w"u8];

    [Fact]
    public void RepackLine_NameOfInvalidBytes_IsTheIndexName()
    {
        TensorIndex index = Read(new GgufBuilder().F32(NameFF, 8).F32("blk.0.w", 8).Build());

        Assert.Equal(["blk.\uDCFF.w", "blk.0.w"], Captured(index, "blk.\uFFFD.w", "blk.0.w"));
    }

    [Fact]
    public void RepackLine_NameTwoTensorsReadAs_IsLeftOut()
    {
        TensorIndex index = Read(new GgufBuilder().F32(NameFF, 8).F32(NameFE, 8).F32("blk.0.w", 8).Build());

        Assert.Equal(["blk.0.w"], Captured(index, "blk.\uFFFD.w", "blk.0.w"));
    }

    private static List<string> Captured(TensorIndex index, params string[] logged)
    {
        var tap = new LLamaLogTap();
        var capture = new LoadCapture(tap, index);
        LLamaLogTap.Bind(capture);
        try
        {
            foreach (string name in logged)
            {
                tap.Callback(LLamaLogLevel.Debug, $"ggml_backend_cpu_repack: repack tensor {name} with q4_0_8x8\n");
            }
        }
        finally
        {
            capture.Close();
            tap.Callback(LLamaLogLevel.Debug, "unbinds the closed capture\n");
        }

        return [.. capture.Names];
    }
}
