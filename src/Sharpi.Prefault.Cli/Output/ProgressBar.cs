using System.Diagnostics;
using System.Globalization;

namespace Sharpi.Prefault.Cli.Output;

/// <summary>
/// Shows a prefault's progress on stderr (so stdout stays clean for --json and pipes): one redrawn bar on a
/// terminal, a plain line about once a second when stderr is redirected (CI logs, files).
/// </summary>
internal sealed class ProgressBar : IProgress<PrefaultProgress>, IDisposable
{
    private const int Width = 30;
    private static readonly TimeSpan PlainInterval = TimeSpan.FromSeconds(1);

    private readonly TextWriter _error;
    private readonly bool _terminal;
    private readonly long _started = Stopwatch.GetTimestamp();
    private readonly object _gate = new();
    private TimeSpan _lastPlain = TimeSpan.MinValue;
    private bool _drew;

    public ProgressBar(TextWriter error, bool terminal)
    {
        _error = error;
        _terminal = terminal;
    }

    // Called on a sweep worker, throttled by the library to about ten a second: the lock is not on the hot path.
    public void Report(PrefaultProgress value)
    {
        lock (_gate)
        {
            TimeSpan elapsed = Stopwatch.GetElapsedTime(_started);
            bool done = value.BytesDone >= value.BytesTotal;
            if (!_terminal && !done && elapsed - _lastPlain < PlainInterval)
            {
                return;
            }

            double rate = elapsed > TimeSpan.Zero ? value.BytesDone / (double)(1L << 30) / elapsed.TotalSeconds : 0;
            string figures = string.Create(CultureInfo.InvariantCulture,
                $"{value.Fraction * 100,5:0.0}% {ByteSize.Format(value.BytesDone)} / {ByteSize.Format(value.BytesTotal)}  {rate:0.00} GiB/s");
            if (_terminal)
            {
                int filled = (int)Math.Round(value.Fraction * Width);
                _error.Write($"\r[{new string('#', filled)}{new string('.', Width - filled)}] {figures}   ");
                _drew = true;
            }
            else
            {
                _error.WriteLine($"progress: {figures}");
                _lastPlain = elapsed;
            }
        }
    }

    /// <summary>Ends the bar's line so what follows starts on a fresh one.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            if (_drew)
            {
                _error.WriteLine();
                _drew = false;
            }
        }
    }
}
