using System.Diagnostics;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// One live status line, redrawn in place, when stdout is a terminal; a timer redraws a long step's elapsed time four
/// times a second. Redirected, each step is one plain line instead, with the time since the run began, flushed at
/// once (a log shows where a run of many minutes is, never a stream of carriage returns).
/// </summary>
internal sealed class ProgressLine : IDisposable
{
    private readonly bool _live;
    private readonly TextWriter _out;
    private readonly long _started = Stopwatch.GetTimestamp();
    private readonly Lock _lock = new();
    private string? _lastPlain;
    private readonly Timer? _timer;
    private string? _step;
    private long _stepStarted;
    private long _lastUpdate;
    private int _shown;

    internal ProgressLine()
        : this(Console.Out, live: !Console.IsOutputRedirected)
    {
    }

    /// <summary>A progress line on <paramref name="output"/>: redrawn in place where <paramref name="live"/>, plain lines otherwise.</summary>
    internal ProgressLine(TextWriter output, bool live)
    {
        _out = output;
        _live = live;
        if (_live)
        {
            _timer = new Timer(static state => ((ProgressLine)state!).Tick(), this, Timeout.Infinite, Timeout.Infinite);
        }
    }

    /// <summary>Starts a step whose elapsed time the line shows until the next step or <see cref="Clear"/>.</summary>
    internal void Begin(string step)
    {
        if (!_live)
        {
            WritePlain(step);
            return;
        }

        lock (_lock)
        {
            _step = step;
            _stepStarted = Stopwatch.GetTimestamp();
            Draw(step);
        }

        _timer!.Change(250, 250);
    }

    /// <summary>Replaces the line's text (at most ten times a second).</summary>
    internal void Update(string text)
    {
        if (!_live || Stopwatch.GetElapsedTime(Interlocked.Read(ref _lastUpdate)) < TimeSpan.FromMilliseconds(100))
        {
            return;
        }

        Interlocked.Exchange(ref _lastUpdate, Stopwatch.GetTimestamp());
        lock (_lock)
        {
            Draw(text);
        }
    }

    /// <summary>A line that stays, printed above the live line.</summary>
    internal void Note(string text)
    {
        lock (_lock)
        {
            Erase();
            CommonOptions.WriteWrapped(text, indent: string.Empty);
            if (_step is not null)
            {
                Draw(_step);
            }
        }
    }

    internal void Clear()
    {
        _timer?.Change(Timeout.Infinite, Timeout.Infinite);
        lock (_lock)
        {
            _step = null;
            Erase();
        }
    }

    public void Dispose()
    {
        Clear();
        _timer?.Dispose();
    }

    /// <summary>
    /// A step as a plain line, "[0:42] step", wrapped at <see cref="CommonOptions.Columns"/>; the same step begun again
    /// (right after its own "step: settling" line) is not repeated.
    /// </summary>
    private void WritePlain(string step)
    {
        lock (_lock)
        {
            if (step == _lastPlain || (_lastPlain is not null && _lastPlain.StartsWith(step + ":", StringComparison.Ordinal)))
            {
                return;
            }

            _lastPlain = step;
            TimeSpan elapsed = Stopwatch.GetElapsedTime(_started);
            string indent = string.Empty;
            foreach (string line in CommonOptions.Wrap($"[{(int)elapsed.TotalMinutes}:{elapsed.Seconds:00}] {step}", CommonOptions.Columns - 2))
            {
                _out.WriteLine(indent + line);
                indent = "  ";
            }

            _out.Flush();
        }
    }

    private void Tick()
    {
        lock (_lock)
        {
            if (_step is not null)
            {
                Draw($"{_step}  {Stopwatch.GetElapsedTime(_stepStarted).TotalSeconds:0.0} s");
            }
        }
    }

    private void Draw(string text)
    {
        if (!_live)
        {
            return;
        }

        int width = Math.Max(20, SafeWindowWidth() - 1);
        if (text.Length > width)
        {
            text = text[..width];
        }

        _out.Write("\r" + text.PadRight(_shown));
        _out.Flush();
        _shown = text.Length;
    }

    private void Erase()
    {
        if (_live && _shown > 0)
        {
            _out.Write("\r" + new string(' ', _shown) + "\r");
            _shown = 0;
        }
    }

    private static int SafeWindowWidth()
    {
        try
        {
            return Console.WindowWidth > 0 ? Console.WindowWidth : 120;
        }
        catch (IOException)
        {
            return 120;
        }
    }
}
