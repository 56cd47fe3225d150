using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The request at its fastest: the file fully cached, mapped and populated, the request run once to settle, then
/// timed three times; the fastest is kept, since on a shared machine every disturbance only adds time. A row's first
/// request over this is its <c>x warm</c>: near 1.0 when the strategy left nothing to fault.
/// </summary>
[SupportedOSPlatform("linux")]
internal static unsafe class WarmRequest
{
    internal static double Measure(WeightsFile file, RequestPlan plan, int threads)
    {
        CacheControl.Establish(file, CacheState.Warm);
        using ColdStartStrategy.MappedFile mapped = ColdStartStrategy.Map(file);
        RawPopulate.Run(mapped.Region.Address, mapped.Region.Length, threads);
        FirstPass.Run(mapped.Start, plan, threads);
        double fastest = double.MaxValue;
        for (int i = 0; i < 3; i++)
        {
            fastest = Math.Min(fastest, FirstPass.Run(mapped.Start, plan, threads).Seconds);
        }

        return fastest;
    }
}
