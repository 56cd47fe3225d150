using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The request warm: the file fully cached, mapped and populated, the request run once to settle, then timed three
/// times; the median is kept. Not the fastest: a row's first request is one run, and the median over repetitions of
/// single runs set against that of minimums read 1.08-1.14x for `direct-io`, whose buffer cannot fault at all. A
/// row's first request over this is its <c>x warm</c>: near 1.0 when the strategy left nothing to fault.
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
        double[] runs = new double[3];
        for (int i = 0; i < runs.Length; i++)
        {
            runs[i] = FirstPass.Run(mapped.Start, plan, threads).Seconds;
        }

        return Statistics.Median(runs);
    }
}
