using System.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>
/// Forwards sweep progress to the caller's <see cref="IProgress{T}"/> at most ten times a second (and always the
/// final figure). Called only from the sweep's calling thread. A callback that throws is reported once and dropped:
/// a progress bar must never break a load.
/// </summary>
internal sealed class ProgressReporter(IProgress<PrefaultProgress> progress, long total, string label, ILogger log)
{
    private static readonly long Interval = Stopwatch.Frequency / 10;
    private long _last; // 0: the first report always goes out (timestamps count from boot, far past one interval)
    private long _lastBytes = -1;
    private bool _broken;

    internal void Report(long done) => Report(done, final: done >= total);

    /// <summary>The last report, whether or not the sweep reached the total (cancellation, failures).</summary>
    internal void Complete(long done) => Report(done, final: true);

    private void Report(long done, bool final)
    {
        long now = Stopwatch.GetTimestamp();
        if (_broken || done == _lastBytes || (!final && now - _last < Interval))
        {
            return;
        }

        _last = now;
        _lastBytes = done;
        try
        {
            progress.Report(new PrefaultProgress(done, total, label));
        }
#pragma warning disable CA1031 // The caller's callback may throw anything; none of it may reach the engine.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            _broken = true;
            Log.ProgressFailed(log, label, ex);
        }
    }
}
