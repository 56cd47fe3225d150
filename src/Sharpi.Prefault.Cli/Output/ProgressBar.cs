using System.Diagnostics;

namespace Sharpi.Prefault.Cli.Output;

/// <summary>
/// Shows a prefault's progress on stderr (so stdout stays clean for --json and pipes): on a terminal one bar redrawn
/// in place that fits the window (file, bytes, GiB/s, ETA); when stderr is redirected (CI logs, files) a plain
/// <c>progress:</c> line every <see cref="PlainInterval"/> and one at the end, none for work done in under a second.
/// </summary>
internal sealed class ProgressBar : IProgress<PrefaultProgress>, IDisposable
{
    private const int MaxBarWidth = 30;
    private const int MinBarWidth = 10;
    private const int MaxNameWidth = 24;
    private static readonly TimeSpan PlainInterval = TimeSpan.FromSeconds(2);
    private static readonly TimeSpan QuickWork = TimeSpan.FromSeconds(1);
    private const int PlainWidth = 100;

    private readonly TextWriter _error;
    private readonly bool _terminal;
    private readonly Func<int> _width;
    private readonly IReadOnlyList<(string Name, long Bytes)> _files;
    private readonly long _filesTotal;
    private readonly long _started = Stopwatch.GetTimestamp();
    private readonly object _gate = new();
    private TimeSpan? _lastPlain;
    private int _drawnLength;

    /// <param name="error">stderr.</param>
    /// <param name="terminal">True when stderr is a terminal: redraw one line; false: plain lines.</param>
    /// <param name="files">The files in sweep order with the bytes asked of each, to name the one in progress.</param>
    /// <param name="width">The terminal's width in columns (read at each redraw: the window may be resized).</param>
    public ProgressBar(TextWriter error, bool terminal, IReadOnlyList<(string Name, long Bytes)> files, Func<int>? width = null)
    {
        _error = error;
        _terminal = terminal;
        _files = files;
        _width = width ?? TerminalWidth;
        foreach ((_, long bytes) in files)
        {
            _filesTotal += bytes;
        }
    }

    /// <summary>True once anything was shown: the summary after it starts on a line of its own.</summary>
    public bool HasReported { get; private set; }

    // Called on a sweep worker, throttled by the library to about ten a second: the lock is not on the hot path.
    public void Report(PrefaultProgress value)
    {
        lock (_gate)
        {
            TimeSpan elapsed = Stopwatch.GetElapsedTime(_started);
            bool done = value.BytesDone >= value.BytesTotal;
            // Redirected, a line every PlainInterval from the start, and the last one only after a run that wrote some or
            // took QuickWork or longer: work done in under a second leaves a log without progress lines.
            if (!_terminal && !(done ? _lastPlain is not null || elapsed >= QuickWork : elapsed - (_lastPlain ?? TimeSpan.Zero) >= PlainInterval))
            {
                return;
            }

            string line = Format(value, elapsed, _terminal ? Math.Max(20, _width() - 1) : PlainWidth - "progress: ".Length);
            if (_terminal)
            {
                // Pad over what the previous, longer line left; never past the width, so the line never wraps.
                _error.Write($"\r{line.PadRight(Math.Min(_drawnLength, Math.Max(20, _width() - 1)))}");
                _error.Flush();
                _drawnLength = line.Length;
            }
            else
            {
                _error.WriteLine($"progress: {line}");
                _lastPlain = elapsed;
            }

            HasReported = true;
        }
    }

    /// <summary>One progress line of at most <paramref name="width"/> characters.</summary>
    internal string Format(PrefaultProgress value, TimeSpan elapsed, int width)
    {
        double seconds = elapsed.TotalSeconds;
        double rate = seconds > 0 ? value.BytesDone / seconds : 0;
        string eta = value.BytesDone >= value.BytesTotal ? "done"
            : rate > 0 ? Duration((value.BytesTotal - value.BytesDone) / rate)
            : "--";
        string figures = _terminal
            ? string.Create(CultureInfo.InvariantCulture,
                $"{value.Fraction * 100,3:0}% {Short(value.BytesDone)}/{Short(value.BytesTotal)} {rate / (1L << 30):0.00}GiB/s ETA {eta}")
            : string.Create(CultureInfo.InvariantCulture,
                $"{value.Fraction * 100,5:0.0}% {Sizes.Format(value.BytesDone)}/{Sizes.Format(value.BytesTotal)} {rate / (1L << 30):0.00} GiB/s ETA {eta}");
        string file = CurrentFile(value.Fraction);
        if (!_terminal)
        {
            // The file's name shortened from the left to keep the line within the width (a log is read at 100 columns).
            int room = width - figures.Length - 1;
            return file.Length == 0 || room < 8 ? figures : $"{figures} {Shorten(file, room)}";
        }

        int left = width - figures.Length;
        int bar = left >= MinBarWidth + 3 ? MinBarWidth : 0;
        left -= bar == 0 ? 0 : bar + 3;
        int name = Math.Min(Math.Min(file.Length, MaxNameWidth), left - 1);
        name = name >= 4 ? name : 0;
        left -= name == 0 ? 0 : name + 1;
        if (bar > 0)
        {
            bar = Math.Min(MaxBarWidth, bar + Math.Max(0, left));
        }

        string line = bar > 0 ? $"[{Bar(value.Fraction, bar)}] {figures}" : figures;
        if (name > 0)
        {
            line += " " + Shorten(file, name);
        }

        return line.Length <= width ? line : line[..width];
    }

    private static string Short(long bytes)
    {
        ReadOnlySpan<char> units = "KMGTP";
        double value = bytes;
        int unit = -1;
        while (value >= 1000 && unit < units.Length - 1)
        {
            value /= 1024;
            unit++;
        }

        return unit < 0
            ? string.Create(CultureInfo.InvariantCulture, $"{bytes}B")
            : string.Create(CultureInfo.InvariantCulture, $"{value:0.0}{units[unit]}");
    }

    /// <summary>Ends the bar's line so what follows starts on a fresh one.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            if (_drawnLength > 0)
            {
                _error.WriteLine();
                _error.Flush();
                _drawnLength = 0;
            }
        }
    }

    private static string Bar(double fraction, int width)
    {
        int filled = (int)Math.Round(Math.Clamp(fraction, 0, 1) * width);
        return new string('#', filled) + new string('.', width - filled);
    }

    // The sweep goes through the files in order, so the fraction done points at the file in progress.
    private string CurrentFile(double fraction)
    {
        if (_files.Count == 0)
        {
            return string.Empty;
        }

        long at = (long)(Math.Clamp(fraction, 0, 1) * _filesTotal);
        long end = 0;
        for (int i = 0; i < _files.Count; i++)
        {
            end += _files[i].Bytes;
            if (at < end || i == _files.Count - 1)
            {
                string name = SafeText.Escape(Path.GetFileName(_files[i].Name));
                return _files.Count == 1 ? name : string.Create(CultureInfo.InvariantCulture, $"{name} ({i + 1}/{_files.Count})");
            }
        }

        return string.Empty;
    }

    private static string Shorten(string text, int room) =>
        text.Length <= room ? text : string.Concat("...", text.AsSpan(text.Length - (room - 3)));

    private static string Duration(double seconds)
    {
        if (double.IsNaN(seconds) || seconds > 99 * 3600)
        {
            return "--";
        }

        var span = TimeSpan.FromSeconds(Math.Ceiling(seconds));
        return span.TotalHours >= 1
            ? string.Create(CultureInfo.InvariantCulture, $"{(int)span.TotalHours}:{span.Minutes:00}:{span.Seconds:00}")
            : string.Create(CultureInfo.InvariantCulture, $"{span.Minutes}:{span.Seconds:00}");
    }

    private static int TerminalWidth()
    {
        try
        {
            int width = Console.WindowWidth;
            return width > 0 ? width : 80;
        }
        catch (IOException)
        {
            return 80;
        }
    }
}
