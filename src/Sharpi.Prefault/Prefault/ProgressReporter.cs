using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>Forwards sweep progress at most ten times a second, and always the final figure; never throws.</summary>
internal sealed class ProgressReporter(IProgress<PrefaultProgress> progress, long total, string label, ILogger log, TimeProvider? time = null)
{
    private readonly TimeProvider _time = time ?? TimeProvider.System;
    private long _last;
    private long _lastBytes = -1; // the first report goes out whatever the clock says
    private bool _broken;

    internal void Report(long done) => Report(done, final: done >= total);

    internal void Complete(long done) => Report(done, final: true);

    private void Report(long done, bool final)
    {
        long now = _time.GetTimestamp();
        bool tooSoon = _lastBytes >= 0 && now - _last < _time.TimestampFrequency / 10;
        if (_broken || done == _lastBytes || (!final && tooSoon))
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
            try
            {
                Log.ProgressFailed(log, label, ex);
            }
#pragma warning disable CA1031 // The logger threw too: leaving here would strand the sweep's helpers.
            catch (Exception)
#pragma warning restore CA1031
            {
            }
        }
    }
}
