using System.Diagnostics;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// One live status line, redrawn in place, only when stdout is a terminal (a redirected run gets the notes and the
/// table, not a stream of carriage returns). A timer redraws a long step's elapsed time four times a second.
/// </summary>
internal sealed class ProgressLine : IDisposable
{
    private readonly bool _live = !Console.IsOutputRedirected;
    private readonly Lock _lock = new();
    private readonly Timer? _timer;
    private string? _step;
    private long _stepStarted;
    private long _lastUpdate;
    private int _shown;

    internal ProgressLine()
    {
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

        Console.Out.Write("\r" + text.PadRight(_shown));
        Console.Out.Flush();
        _shown = text.Length;
    }

    private void Erase()
    {
        if (_live && _shown > 0)
        {
            Console.Out.Write("\r" + new string(' ', _shown) + "\r");
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
