using Microsoft.Extensions.Logging.Abstractions;
using System.Diagnostics;

namespace Sharpi.Prefault.Cli.Commands;

/// <summary>
/// <c>keep</c>: keeps FILEs (or the selected tensors) warm until SIGTERM, reading back only the 2 MiB blocks that left
/// the page cache, on one lowest-priority thread, through the RAM gate and under the kill switch.
/// </summary>
internal static class KeepCommand
{
    /// <summary>The default look interval: 10 s.</summary>
    public static readonly TimeSpan DefaultInterval = TimeSpan.FromSeconds(10);

    /// <summary>
    /// How long after the signal keep waits for its thread to end its look (a read-back stops at its next chunk) before
    /// it ends without it: a thread blocked in the kernel (an open, a read of a hung file system) sees no token.
    /// </summary>
    public static readonly TimeSpan StopGrace = TimeSpan.FromSeconds(5);

    /// <summary>How keep maps a file: held for its life (the default) or per look.</summary>
    internal enum MappingMode
    {
        /// <summary>Mapped at the first look and kept mapped (re-mapped when the file is replaced or resized), its pages mapped by populate.</summary>
        Held,

        /// <summary>Mapped for each look only: between looks the pages are the page cache's alone.</summary>
        Look,
    }

    public static Command Create()
    {
        var selection = new FileSelectionOptions();
        Option<string> gate = CommonOptions.Gate(
            "The RAM-fit gate for each look's reads: 'fits' reads back only what fits in available memory (or the cgroup's room), 'always' everything.");
        // No DefaultValueFactory: help would print the default as a TimeSpan (00:00:10), which --interval does not
        // accept; the description names it the way it is typed.
        var interval = new Option<TimeSpan?>("--interval")
        {
            Description = "How often to look: 10s (the default), 500ms, 2m, 1h, or seconds as a plain number.",
            HelpName = "DURATION",
            CustomParser = result => ParseInterval(result),
        };

        var mapping = new Option<string>("--mapping")
        {
            Description = "'held' (the default) keeps each file mapped with its pages populated, so a reclaimer of unmapped page cache (DAMON) spares them; 'look' maps it only while looking.",
            DefaultValueFactory = _ => "held",
        };
        mapping.AcceptOnlyFromAmong("held", "look");

        Command command = selection.CreateCommand(
            "keep", "Keep FILEs (or the selected tensors) in the page cache until SIGTERM: each interval, read back only what left it, at low CPU and I/O priority.", endsOnSignal: true, gate, interval, mapping);

        // The token is cancelled on SIGINT and SIGTERM (Program's Interruption): the way a keeper is meant to end.
        command.SetAction((parse, cancellationToken) => RunAsync(
            CliContext.From(parse),
            selection.Read(parse),
            CommonOptions.GetGate(parse, gate),
            parse.GetValue(interval) ?? DefaultInterval,
            parse.GetValue(mapping) == "look" ? MappingMode.Look : MappingMode.Held,
            cancellationToken));
        return command;
    }

    /// <summary>
    /// <c>500ms</c>, <c>10s</c>, <c>2m</c>, <c>1h</c> or a plain number of seconds; more than zero and at most a day.
    /// </summary>
    internal static TimeSpan ParseInterval(System.CommandLine.Parsing.ArgumentResult result)
    {
        string text = result.Tokens.Count == 1 ? result.Tokens[0].Value.Trim() : string.Empty;
        (string number, double unitSeconds) = text switch
        {
            _ when text.EndsWith("ms", StringComparison.Ordinal) => (text[..^2], 0.001),
            _ when text.EndsWith('s') => (text[..^1], 1.0),
            _ when text.EndsWith('m') => (text[..^1], 60.0),
            _ when text.EndsWith('h') => (text[..^1], 3600.0),
            _ => (text, 1.0),
        };
        if (double.TryParse(number, NumberStyles.Float, CultureInfo.InvariantCulture, out double value)
            && value * unitSeconds is double seconds && seconds >= 0.001 && seconds <= 86400)
        {
            return TimeSpan.FromSeconds(seconds);
        }

        result.AddError($"--interval needs a duration from 1ms to 24h (500ms, 10s, 2m), not '{text}'.");
        return DefaultInterval;
    }

    private static async Task<int> RunAsync(
        CliContext context, FileSelection selection, RamGate gate, TimeSpan interval, MappingMode mode, CancellationToken cancellationToken)
    {
        (string[] paths, TensorFilter filter, bool recursive, bool json) = selection;
        // The files are resolved once (a model's tensor table read now): restart keep after replacing a model.
        List<FileTarget> targets = Targets.Resolve(context, paths, filter, readModels: false, recursive);
        var files = targets.ConvertAll(t => new TouchFileJson(t.DisplayPath, SelectedBytes(t, filter), t.UsesTensorRanges(filter) ? t.Tensors!.Count : null));
        bool killSwitch = CliContext.KillSwitchIsOn(out string killReason);
        if (files.Sum(f => f.Bytes) == 0)
        {
            // An empty file or no usable file: a keeper of nothing that ran for ever would only look like success.
            context.Fail(targets.Count == 0 ? "keep" : string.Join(", ", files.Select(f => f.File)), "nothing to keep warm (no bytes selected).");
            WriteStop(context, json, 0, 0);
            return context.ExitCode;
        }

        if (json)
        {
            CliJsonContext.Write(context.Out, new KeepStartJson("start", interval.TotalSeconds, CommonOptions.GateName(gate), killSwitch, files, [.. context.Failures]) { Mapping = mode == MappingMode.Held ? "held" : "look" }, CliJsonContext.Lines.KeepStartJson);
        }
        else
        {
            context.Out.WriteLine($"keeping {Sizes.Format(files.Sum(f => f.Bytes))} of {files.Count} file(s) warm, looking every {FormatInterval(interval)}{(mode == MappingMode.Held ? ", mapped" : string.Empty)}; until SIGTERM");
        }

        if (killSwitch)
        {
            context.Note("nothing restored", $"{killReason}; keep looks at nothing and reads nothing until it is restarted without it.");
        }

        // One thread of its own, at the lowest priority, does every look: the reads it causes carry its I/O priority.
        // Disposed (its mappings unmapped) only once its thread ended: one still blocked in a look may be using them.
        var keeper = new Keeper(context, targets, files, filter, gate, mode, json);
        var finished = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var thread = new Thread(() =>
        {
            try
            {
                keeper.Run(interval, cancellationToken);
                finished.SetResult();
            }
#pragma warning disable CA1031 // Handed to the awaiting command, which reports it in one line (CliApp).
            catch (Exception e)
#pragma warning restore CA1031
            {
                finished.SetException(e);
            }
        })
        {
            IsBackground = true,
            Name = "sharpi-keep",
        };
        thread.Start();
        bool ended;
        try
        {
            ended = await Ends(finished.Task, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            keeper.Dispose(); // the thread ended with the failure Ends rethrows
            throw;
        }

        if (ended)
        {
            keeper.Dispose();
        }
        else
        {
            // The thread is a background one: it ends with the process, which must not wait for it.
            context.Note("keep", string.Create(CultureInfo.InvariantCulture,
                $"look {keeper.Looks + 1} did not end within {StopGrace.TotalSeconds:0} s of the signal (its thread is blocked in a call that does not return); keep ends without it"));
        }

        WriteStop(context, json, keeper.Looks, keeper.RestoredBytes, always: !ended);
        return context.ExitCode;
    }

    /// <summary>
    /// True once the keeper's thread ended (its failure rethrown); false where the token was cancelled (the signal) and
    /// the thread had not ended <see cref="StopGrace"/> later.
    /// </summary>
    private static async Task<bool> Ends(Task finished, CancellationToken cancellationToken)
    {
        using var signalled = new CancellationTokenSource();
        Task signal = Task.Delay(Timeout.Infinite, cancellationToken).ContinueWith(_ => { }, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        if (await Task.WhenAny(finished, signal).ConfigureAwait(false) != finished)
        {
            _ = await Task.WhenAny(finished, Task.Delay(StopGrace, signalled.Token)).ConfigureAwait(false);
            await signalled.CancelAsync().ConfigureAwait(false);
        }

        if (!finished.IsCompleted)
        {
            return false;
        }

        await finished.ConfigureAwait(false);
        return true;
    }

    private static void WriteStop(CliContext context, bool json, long looks, long restored, bool always = false)
    {
        if (json)
        {
            CliJsonContext.Write(context.Out, new KeepStopJson("stop", looks, restored, [.. context.Failures]), CliJsonContext.Lines.KeepStopJson);
        }
        else if (looks > 0 || always)
        {
            context.Out.WriteLine($"stopped after {looks} look(s); restored {Sizes.Format(restored)} in all");
        }
    }

    private static long SelectedBytes(FileTarget target, TensorFilter filter) =>
        target.UsesTensorRanges(filter) ? target.Tensors!.Sum(t => t.Length) : target.Length;

    private static string FormatInterval(TimeSpan interval) => interval.TotalSeconds >= 1
        ? string.Create(CultureInfo.InvariantCulture, $"{interval.TotalSeconds:0.###} s")
        : string.Create(CultureInfo.InvariantCulture, $"{interval.TotalMilliseconds:0.###} ms");

    /// <summary>The looks, on the keeper's thread.</summary>
    private sealed class Keeper(CliContext context, List<FileTarget> targets, List<TouchFileJson> files, TensorFilter filter, RamGate gate, MappingMode mode, bool json)
        : IDisposable
    {
        /// <summary>In <see cref="MappingMode.Held"/>, each file's mapping and the status its path had just before it was mapped.</summary>
        private readonly (FileMapping Mapping, FileStatus Status)?[] _held = new (FileMapping, FileStatus)?[targets.Count];

        /// <summary>The room under vm.max_map_count, counted at most once a look and only when a file is to be mapped anew.</summary>
        private MappingRoom? _room;

        /// <summary>Each file's last failure, so a file that stays unusable is named once, not at every look.</summary>
        private readonly Dictionary<string, string> _failing = new(StringComparer.Ordinal);

        public long Looks { get; private set; }

        public long RestoredBytes { get; private set; }

        public void Run(TimeSpan interval, CancellationToken cancellationToken)
        {
            if (BackgroundPriority.LowerCurrentThread() is string refused)
            {
                context.Note("keep", $"runs at a higher priority than asked: {refused}");
            }

            while (!cancellationToken.IsCancellationRequested)
            {
                KeepLookJson look = Look(Looks + 1, cancellationToken);
                Looks++;
                RestoredBytes += look.RestoredBytes;
                Write(look);
                if (cancellationToken.WaitHandle.WaitOne(interval))
                {
                    break;
                }
            }
        }

        /// <summary>One look over every file: map it, find what left the cache, read back what the gate allows, unmap it.</summary>
        private KeepLookJson Look(long number, CancellationToken cancellationToken)
        {
            DateTimeOffset time = DateTimeOffset.UtcNow;
            var failures = new List<FailureJson>();
            _room = null;
            if (CliContext.KillSwitchIsOn(out string killReason))
            {
                // The kill switch wins: nothing is measured or read.
                return new KeepLookJson("look", number, time, 0, 0, 0, 0, 0, 0, 0, false, false, killReason, failures);
            }

            // The gate weighs the whole selection, not only what left: read back only the first budget's worth of it
            // (in argument order), so keep never reads what the kernel must then reclaim from the same memory (a
            // cgroup's limit), only to read it back at the next look.
            RamGateDecision decision = SelectionGate.Decide(gate, files.Sum(f => f.Bytes), number == 1 ? context.Logger : NullLogger.Instance);
            long budget = decision.ShouldRun ? decision.BudgetBytes : 0;
            long bytes = 0, resident = 0, residentAfter = 0, restored = 0, before = 0, unknown = 0;
            int ranges = 0;
            bool ran = false, partial = false;
            string? reason = null;
            var clock = Stopwatch.StartNew();
            for (int i = 0; i < targets.Count && !cancellationToken.IsCancellationRequested; i++)
            {
                FileTarget target = targets[i];
                long selected = files[i].Bytes;
                FileMapping? perLook = null;
                try
                {
                    // Held: mapped for keep's life, and a fresh mapping has every page of its selection mapped by the
                    // sweep (resident ones cost no read), so a reclaimer of unmapped page cache passes them by.
                    bool fresh = false;
                    FileMapping mapping = (mode == MappingMode.Held ? Held(i, target, out fresh) : null) ?? (perLook = FileMapping.Open(target));
                    List<PrefaultRegion> regions = mapping.Regions(tensorsOnly: filter.NamesTensors);
                    CacheGaps.Gaps gaps = CacheGaps.Find(mapping, regions);
                    selected = gaps.Bytes;
                    bytes += gaps.Bytes;
                    resident += gaps.ResidentBytes;
                    unknown += gaps.UnknownBytes;
                    ranges += gaps.Missing.Count;
                    long room = budget == long.MaxValue ? long.MaxValue : Math.Max(0, budget - before);
                    List<PrefaultRegion> allowed = CacheGaps.Within(gaps.Missing, room);
                    if (allowed.Count < gaps.Missing.Count || (allowed.Count > 0 && allowed[^1].Length < gaps.Missing[allowed.Count - 1].Region.Length))
                    {
                        partial = true;
                        reason ??= decision.Reason;
                    }

                    // A fresh held mapping sweeps its whole selection (within the budget): what is resident gets mapped.
                    List<PrefaultRegion> swept = fresh ? CacheGaps.Within(CacheGaps.Whole(regions), room) : allowed;
                    if (swept.Count > 0)
                    {
                        PrefaultResult result = Restore(swept, cancellationToken);
                        ran |= result.HasRun;
                        // Bytes of unknown residency were swept too; how many of them came from disk no one can tell.
                        restored += Math.Max(0, result.BytesResident - result.BytesAlreadyResident - result.BytesAlreadyResidentUnknown);
                        if (result.IsPartial || !result.HasRun)
                        {
                            partial = true;
                            reason ??= result.Reason;
                        }

                        foreach (RegionFailure failure in result.Failures)
                        {
                            failures.Add(new FailureJson(failure.Name, failure.Message));
                        }
                    }

                    // Measured again after the read, not assumed from it: what the report says is resident is what is.
                    residentAfter += swept.Count > 0 ? CacheGaps.Find(mapping, regions).ResidentBytes : gaps.ResidentBytes;
                    Recovered(target.DisplayPath);
                }
                catch (Exception e) when (FileErrors.IsExpected(e))
                {
                    Release(i);
                    failures.Add(new FailureJson(target.DisplayPath, FileErrors.Describe(e)));
                }
                finally
                {
                    perLook?.Dispose();
                }

                before += selected;
            }

            foreach (FailureJson failure in failures)
            {
                Failed(failure);
            }

            double seconds = ran ? clock.Elapsed.TotalSeconds : 0;
            double rate = seconds > 0 ? restored / (double)(1L << 30) / seconds : 0;
            return new KeepLookJson("look", number, time, bytes, resident, bytes - resident, ranges, restored, seconds, rate, ran, partial,
                reason ?? (ranges == 0 ? "nothing left the cache" : unknown > 0 ? $"swept what may have left the cache ({UnknownResidency.Why})" : "read back what left the cache"),
                failures)
            {
                UnknownBytes = unknown,
                ResidentAfterBytes = residentAfter,
            };
        }

        /// <summary>
        /// The file's held mapping; a new one (<paramref name="fresh"/>) at the first look, after a failure, or when
        /// the path now names another file or a different length (replaced, truncated, grown): the old mapping would
        /// keep the replaced file's pages, or reach past a truncated end (the sweep reads it safely, but for nothing).
        /// Null when vm.max_map_count leaves no room to hold one more (each held file is a mapping, and past the limit
        /// the runtime aborts the process): that file is mapped for the look only.
        /// </summary>
        private FileMapping? Held(int index, FileTarget target, out bool fresh)
        {
            FileStatus? now = FileStatus.TryOf(target.FullPath);
            if (_held[index] is { } held && now is { HasIdentity: true } status
                && status.Identity == held.Status.Identity && status.Length == held.Status.Length)
            {
                fresh = false;
                return held.Mapping;
            }

            Release(index);
            fresh = false;
            _room ??= MappingRoom.Current();
            if (!_room.TryTake(1))
            {
                return null;
            }

            FileMapping mapping = FileMapping.Open(target);
            // The status from before the map: a file replaced after it differs from it at the next look, and is re-mapped then.
            _held[index] = now is { HasIdentity: true } before ? (mapping, before) : (mapping, default);
            fresh = true;
            return mapping;
        }

        private void Release(int index)
        {
            if (_held[index] is { } held)
            {
                _held[index] = null;
                held.Mapping.Dispose();
            }
        }

        public void Dispose()
        {
            for (int i = 0; i < _held.Length; i++)
            {
                Release(i);
            }
        }

        /// <summary>One sweep over the missing blocks on this thread only (its priority is the one lowered).</summary>
        private PrefaultResult Restore(List<PrefaultRegion> missing, CancellationToken cancellationToken) =>
            MmapPrefault.Run(missing, new PrefaultOptions
            {
                Label = $"{CliApp.Name} keep",
                RamGate = gate,
                MaxDegreeOfParallelism = 1,
                WorkerPriority = ThreadPriority.Lowest,
                Logger = context.Logger,
            }, cancellationToken);

        private void Write(KeepLookJson look)
        {
            if (json)
            {
                CliJsonContext.Write(context.Out, look, CliJsonContext.Lines.KeepLookJson);
                return;
            }

            // Text: the first look, and any look that found something gone; a quiet look says nothing.
            if (look.Look != 1 && look.MissingBytes == 0)
            {
                return;
            }

            string time = look.Time.ToString("yyyy-MM-dd'T'HH:mm:ss'Z'", CultureInfo.InvariantCulture);
            if (!look.Ran && look.MissingBytes == 0 && look.Bytes == 0)
            {
                context.Out.WriteLine($"{time} look {look.Look}: {SafeText.Escape(look.Reason)}");
                return;
            }

            string what = look.MissingBytes == 0
                ? "nothing left the cache"
                : look.UnknownBytes > 0
                    ? string.Create(CultureInfo.InvariantCulture,
                        $"{Sizes.Format(look.UnknownBytes)} of unknown residency (a file this user cannot write) and {Sizes.Format(look.MissingBytes - look.UnknownBytes)} not resident, in {look.Ranges} range(s); swept them in {look.Seconds:0.000} s")
                    : string.Create(CultureInfo.InvariantCulture,
                        $"{Sizes.Format(look.MissingBytes)} not resident in {look.Ranges} range(s); read back {Sizes.Format(look.RestoredBytes)} in {look.Seconds:0.000} s ({look.GibPerSecond:0.00} GiB/s)");
            string gateNote = look.Partial ? $"; not all read back: {SafeText.Escape(look.Reason)}" : string.Empty;
            string after = look.UnknownBytes > 0
                ? "what is resident now is unknown to this user"
                : $"{Sizes.Format(look.ResidentAfterBytes)} of {Sizes.Format(look.Bytes)} resident";
            context.Out.WriteLine($"{time} look {look.Look}: {what}; {after}{gateNote}");
        }

        private void Failed(FailureJson failure)
        {
            if (!_failing.TryGetValue(failure.Name, out string? last) || last != failure.Message)
            {
                _failing[failure.Name] = failure.Message;
                context.Note(failure.Name, failure.Message + " (keep goes on; named again only if it changes)");
            }
        }

        private void Recovered(string file)
        {
            if (_failing.Remove(file))
            {
                context.Note(file, "usable again");
            }
        }
    }
}
