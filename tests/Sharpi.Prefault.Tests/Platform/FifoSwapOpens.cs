using System.Globalization;
using Sharpi.Prefault.Tests.Models;

namespace Sharpi.Prefault.Tests.Platform;

/// <summary>
/// The child side of <see cref="FileOpenerFifoSwapTests"/>: a thread swaps a FIFO and a model file with
/// renameat2(RENAME_EXCHANGE) in a tight loop while the main thread calls one of the library's file APIs on the
/// model's path again and again. An API that checks the path and then opens it blocks in open when the FIFO lands in
/// between (until a writer comes, which none does): the parent's watchdog then kills the child.
/// </summary>
internal static class FifoSwapOpens
{
    internal const string Case = "fifo-swap-opens";

    /// <summary>Runs <paramref name="api"/> <paramref name="calls"/> times under the swap; prints calls= and refused= and done.</summary>
    internal static int Run(string folder, string api, int calls)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        string model = Path.Combine(folder, "model.gguf");
        File.WriteAllBytes(model, new GgufBuilder().UInt32("general.alignment", 64).F32("token_embd.weight", 16, 4).F32("output.weight", 4).Build());
        long swaps;
        int refused = 0;
        using (var swap = FifoSwap.Start(model))
        {
            for (int i = 0; i < calls; i++)
            {
                try
                {
                    Call(api, model);
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException or ModelFormatException or ArgumentOutOfRangeException)
                {
                    refused++; // the FIFO, seen and turned away: what the fix promises
                }
            }

            swaps = swap.Swaps;
        }

        Console.WriteLine($"calls={calls}");
        Console.WriteLine($"refused={refused}");
        Console.WriteLine($"swaps={swaps.ToString(CultureInfo.InvariantCulture)}");
        Console.WriteLine("done");
        return 0;
    }

    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static void Call(string api, string path)
    {
        switch (api)
        {
            case "PageCache.Evict":
                PageCache.Evict(path);
                break;
            case "Residency.OfFile":
                _ = Residency.OfFile(path);
                break;
            case "TensorIndex.Read":
                _ = TensorIndex.Read(path);
                break;
            case "MappedModel.OpenFile":
                MappedModel.OpenFile(path).Dispose();
                break;
            case "PageCache.WarmAsync":
                _ = PageCache.WarmAsync(path).AsTask().GetAwaiter().GetResult();
                break;
            case "DirectFileReader.Open":
                DirectFileReader.Open(path).Dispose();
                break;
            default:
                throw new ArgumentException($"unknown API '{api}'", nameof(api));
        }
    }
}
