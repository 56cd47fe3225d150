using System.CommandLine;
using System.Diagnostics;
using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// <c>--settle auto|none|SECONDS</c>: where a VM reports free pages to its host, each cold row waits after its
/// eviction until the memory that eviction (and the row before) freed has been reported, so every row starts on the
/// same kind of memory: blocks the host took back and must fault in again, as on a microVM that has been idle. The
/// kernel's page reporting worker runs 2 s after a free of a block of order >= <c>page_reporting_order</c>
/// (PAGE_REPORTING_DELAY, mm/page_reporting.c) and reports a budget per pass (about a sixteenth of each free list,
/// at least 64 blocks), asking for another pass 2 s later while blocks are left: back-to-back rows used to land on
/// memory freed a moment before and not yet reported, so how much a row paid depended on the row before it.
/// Only whole free blocks are reported: pages freed among pages still in use (a row that read in 4 KiB folios leaves
/// much of its file that way) stay with the VM. So each observed wait first asks the kernel to compact memory
/// (<see cref="CompactMemoryPath"/>), which gathers them into whole blocks the worker then reports.
/// </summary>
internal sealed class ReportingSettle
{
    /// <summary>Under this much of the memory unreported at the start of a wait left unreported, reporting has caught up.</summary>
    internal const long FloorBytes = 16L << 20;

    /// <summary>No block newly reported for longer than the worker's 2 s delay: it has gone idle with what is left.</summary>
    internal static readonly TimeSpan Quiet = TimeSpan.FromSeconds(3);

    /// <summary>The kernel's own estimate for reporting every free page of an idle system is about 30 s; twice that ends any wait.</summary>
    internal static readonly TimeSpan Cap = TimeSpan.FromSeconds(60);

    private static readonly TimeSpan Poll = TimeSpan.FromMilliseconds(500);

    /// <summary>Writing 1 here compacts every zone (mm/compaction.c, CONFIG_COMPACTION; root).</summary>
    internal const string CompactMemoryPath = "/proc/sys/vm/compact_memory";

    private string? _compactionFailed;
    private double _compactionSeconds;

    private readonly string _how;
    private readonly double? _fixedSeconds;
    private readonly int _order;
    private readonly int _maxOrder;
    private readonly ProgressLine _progress;
    private readonly List<Outcome> _outcomes = [];

    private ReportingSettle(string how, double? fixedSeconds, int order, ProgressLine progress)
    {
        _how = how;
        _fixedSeconds = fixedSeconds;
        _order = order;
        _maxOrder = ReportedMemory.MaxOrder();
        _progress = progress;
    }

    /// <summary>
    /// How one wait ended: "reported" (under the floor), "idle" (nothing reported for <see cref="Quiet"/>), "cap",
    /// "unreadable" (the probe failed), or "fixed".
    /// </summary>
    internal readonly record struct Outcome(double Seconds, string End, long UnreportedBytes);

    internal static Option<string> CreateOption()
    {
        var option = new Option<string>("--settle")
        {
            Description = "auto (default): on a VM whose free page reporting is on (and not suspended), each cold row waits after its eviction until " +
                "the freed memory was reported to the host (as root: memory compacted first, then /proc/kpageflags watched; otherwise a fixed wait " +
                "the kernel's pace bounds), so every " +
                "row starts on memory the host took back. none: no wait. SECONDS: a fixed wait after each eviction, on any machine.",
            DefaultValueFactory = _ => "auto",
        };

        // Checked with the command line, before a weights file is written.
        option.Validators.Add(static result =>
        {
            string value = result.GetValueOrDefault<string>() ?? string.Empty;
            if (value is not ("auto" or "none") && FixedSeconds(value) is null)
            {
                result.AddError($"--settle: '{value}' is not auto, none or a number of seconds (0-3600).");
            }
        });
        return option;
    }

    private static double? FixedSeconds(string value) =>
        double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds) && seconds >= 0 && seconds <= 3600 ? seconds : null;

    /// <summary>
    /// The wait the option asks for, or null for none (<c>none</c>, or <c>auto</c> where nothing is reported to a
    /// host); the notes say what it will do.
    /// </summary>
    internal static ReportingSettle? Create(string value, bool reportingOn, long fileBytes, List<string> notes, ProgressLine progress)
    {
        int order = ReportingOrder() ?? 9;
        string? why = null;
        switch (value)
        {
            case "none":
                if (reportingOn)
                {
                    notes.Add("--settle none: cold rows ran right after their eviction, on memory the host may not have taken back yet " +
                        "(how much a row pays then depends on the row before it).");
                }

                return null;

            case "auto" when !reportingOn:
                return null;

            case "auto" when ReportedMemory.CanProbe(out why):
                return new ReportingSettle(
                    $"after each cold row's eviction the bench compacted memory ({CompactMemoryPath}: free pages among pages in use form no block to " +
                    $"report) and waited until /proc/kpageflags showed the free memory that was unreported then " +
                    $"(blocks of order >= {order}) reported or taken, down to {Sizes.Format(FloorBytes)}, or no block newly reported for " +
                    $"{Quiet.TotalSeconds:0} s (the reporting worker runs 2 s after a free), at most {Cap.TotalSeconds:0} s", fixedSeconds: null, order, progress);

            case "auto":
                {
                    // The kernel's pace bounds it: the first pass 2 s after the free, then a pass every 2 s of at least 64 blocks of the order.
                    long blockBytes = (1L << order) * Environment.SystemPageSize;
                    double seconds = Math.Min(Cap.TotalSeconds, 2 + (2 * Math.Ceiling(fileBytes / (64.0 * blockBytes))));
                    return new ReportingSettle(
                        string.Create(CultureInfo.InvariantCulture,
                            $"{why}, so after each cold row's eviction the bench waited a fixed {seconds:0} s: 2 s before the reporting worker's first pass, " +
                            $"then 2 s per 64 blocks of {Sizes.Format(blockBytes)} freed, the least a pass reports"),
                        seconds, order, progress);
                }

            default:
                if (FixedSeconds(value) is double fixedSeconds)
                {
                    return new ReportingSettle(string.Create(CultureInfo.InvariantCulture, $"after each cold row's eviction the bench waited {fixedSeconds:0.###} s"),
                        fixedSeconds, order, progress);
                }

                throw new BenchException($"--settle: '{value}' is not auto, none or a number of seconds (0-3600).");
        }
    }

    /// <summary>Waits as configured after an eviction, showing it on the progress line under <paramref name="step"/>; returns the seconds waited.</summary>
    internal double Wait(string step)
    {
        long started = Stopwatch.GetTimestamp();
        Outcome outcome = _fixedSeconds is double fixedSeconds ? WaitFixed(step, fixedSeconds) : Observe(step, started);
        _outcomes.Add(outcome);
        _progress.Begin(step);
        return outcome.Seconds;
    }

    /// <summary>
    /// What a verdict heading may say of the waits: "settled" only where every wait was seen to end under
    /// <see cref="FloorBytes"/>; "not settled: 0 of 39 waits reached the floor" where a wait ended idle, at the cap or
    /// unread (the rows after it may have landed on memory the host had not taken back); "not observed" for fixed waits.
    /// </summary>
    internal string Condition()
    {
        if (_fixedSeconds is double seconds)
        {
            return string.Create(CultureInfo.InvariantCulture, $"a fixed {seconds:0.###} s wait after each eviction, not observed");
        }

        int reported = _outcomes.Count(static o => o.End == "reported");
        return reported == _outcomes.Count
            ? "settled"
            : string.Create(CultureInfo.InvariantCulture, $"not settled: {reported} of {_outcomes.Count} waits reached the floor");
    }

    /// <summary>One line for the notes: what the waits were, how long they took and how they ended.</summary>
    internal string Summary()
    {
        string how = $"--settle ({_how})";
        if (_outcomes.Count == 0)
        {
            return how + ": no cold row ran.";
        }

        double[] seconds = [.. _outcomes.Select(static o => o.Seconds)];
        string text = string.Create(CultureInfo.InvariantCulture,
            $"{how}: {_outcomes.Count} waits, {ResultTable.Seconds(seconds.Min())}-{ResultTable.Seconds(seconds.Max())} s, median {ResultTable.Seconds(Statistics.Median(seconds))} s");
        if (_fixedSeconds is null)
        {
            int reported = _outcomes.Count(static o => o.End == "reported");
            Outcome[] idle = [.. _outcomes.Where(static o => o.End == "idle")];
            int capped = _outcomes.Count(static o => o.End == "cap");
            int unreadable = _outcomes.Count(static o => o.End == "unreadable");
            text += $"; {reported} under the floor";
            if (idle.Length > 0)
            {
                text += $", {idle.Length} idle with up to {Sizes.Format(idle.Max(static o => o.UnreportedBytes))} left unreported (the reporting worker stopped before them: a zone below its watermark, say)";
            }

            text += capped > 0 ? $", {capped} stopped at the {Cap.TotalSeconds:0} s cap" : string.Empty;
            text += unreadable > 0 ? $", {unreadable} stopped when /proc/kpageflags could not be read" : string.Empty;
            text += _compactionFailed is null
                ? string.Create(CultureInfo.InvariantCulture, $"; the compactions took {ResultTable.Seconds(_compactionSeconds)} s in all, inside the waits")
                : $"; memory was not compacted ({_compactionFailed}), so free pages among pages in use stayed unreported";
        }

        return text + ".";
    }

    private Outcome WaitFixed(string step, double seconds)
    {
        _progress.Begin($"{step}: settling {seconds:0.#} s");
        Thread.Sleep(TimeSpan.FromSeconds(seconds));
        return new Outcome(seconds, "fixed", 0);
    }

    /// <summary>
    /// Waits until the free memory that was unreported when the wait began (the eviction's, the row before's, and
    /// whatever others had freed: all of it memory the row could land on) has been reported or taken, down to
    /// <see cref="FloorBytes"/>; memory freed by others while it waits does not extend it.
    /// </summary>
    private Outcome Observe(string step, long started)
    {
        _progress.Begin($"{step}: compacting memory, then waiting for free page reporting to settle");
        Compact();

        // The quiet time runs from the end of the compaction: a slow one must not end the wait before its first look.
        long lastReport = Stopwatch.GetTimestamp();
        if (ReportedMemory.Probe(_order, _maxOrder) is not { } first)
        {
            return new Outcome(Stopwatch.GetElapsedTime(started).TotalSeconds, "unreadable", 0);
        }

        ReportedMemory now = first;
        while (true)
        {
            long left = now.StillUnreported(first.Unreported) * now.SpanBytes;
            double elapsed = Stopwatch.GetElapsedTime(started).TotalSeconds;
            string end = left < FloorBytes ? "reported"
                : Stopwatch.GetElapsedTime(lastReport) >= Quiet ? "idle"
                : elapsed >= Cap.TotalSeconds ? "cap"
                : string.Empty;
            if (end.Length > 0)
            {
                return new Outcome(elapsed, end, left);
            }

            Thread.Sleep(Poll);
            if (ReportedMemory.Probe(_order, _maxOrder) is not { } next)
            {
                return new Outcome(Stopwatch.GetElapsedTime(started).TotalSeconds, "unreadable", left);
            }

            if (next.NewlyReported(now) > 0)
            {
                lastReport = Stopwatch.GetTimestamp();
            }

            now = next;
        }
    }

    /// <summary>Compacts memory once; after a failure (no CONFIG_COMPACTION, no permission) it stops trying, and the summary says why.</summary>
    private void Compact()
    {
        if (_compactionFailed is not null)
        {
            return;
        }

        long started = Stopwatch.GetTimestamp();
        try
        {
            File.WriteAllText(CompactMemoryPath, "1");
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            _compactionFailed = $"{CompactMemoryPath}: {e.Message}";
        }

        _compactionSeconds += Stopwatch.GetElapsedTime(started).TotalSeconds;
    }

    private static int? ReportingOrder() =>
        BlockDevice.TryRead(FreePageReporting.OrderPath) is { } text && int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int order) ? order : null;
}
