using System.Diagnostics;
using System.Runtime.Versioning;
using Microsoft.ML.OnnxRuntime;
using Sharpi.Prefault.Samples.OnnxRuntime;

namespace Sharpi.Prefault.Bench;

/// <summary>One repetition of one engine row: its sample, the outputs of its two inferences, and what the prefault found.</summary>
/// <param name="Mappings">
/// Mapped ranges of the weights found after the session was created (<see cref="NativeMappings.OfFile"/>: one per
/// mapping, where the kernel has not merged neighbours); null where the row did not look.
/// </param>
/// <param name="GivenBackBytes">prefault-before-create: the RssFile its <see cref="MappedModel"/>'s disposal gave back after create; null otherwise.</param>
internal sealed record EngineRun(Sample Sample, float[] FirstOutput, float[] SecondOutput, int? Mappings, long? GivenBackBytes);

/// <summary>One engine row before its first inference: how it creates the session and where it puts the prefault.</summary>
/// <param name="Name">The row's name in the table.</param>
/// <param name="Prepare">Creates the session, prefaults (or not) and runs the simulated init: what the row did before its first inference.</param>
internal sealed record EngineRow(string Name, Func<EngineRowRun, PreparedSession> Prepare);

/// <summary>What a row runs over: the model, the prepacking setting, the init, and the prefault's options.</summary>
internal sealed record EngineRowRun(EngineModel Model, bool Prepacking, SimulatedInit Init, PrefaultOptions Options);

/// <summary>A row's session before its first inference, and what getting there took.</summary>
/// <param name="Mappings">
/// Mapped ranges of the weights found after the session was created (<see cref="NativeMappings.OfFile"/>: one per
/// mapping, where the kernel has not merged neighbours); null where the row did not look.
/// </param>
/// <param name="GivenBackBytes">prefault-before-create: the RssFile its <see cref="MappedModel"/>'s disposal gave back after create; null otherwise.</param>
internal sealed record PreparedSession(InferenceSession Session, double CreateSeconds, double PrefaultSeconds, double InitSeconds, string Method,
    int? Mappings = null, long? GivenBackBytes = null);

/// <summary>
/// The engine rows: a real ONNX Runtime session (CPU provider) over <see cref="EngineModel"/>, created cold, then the
/// same simulated init, then two inferences, with the prefault placed where an integration would put it (as
/// coldstart's <see cref="ColdStartStrategy"/> rows, one record each).
/// </summary>
internal static class EngineRows
{
    internal const string None = "none";
    internal const string AfterCreate = "prefault-after-create";
    internal const string BeforeCreate = "prefault-before-create";
    internal const string StartDuringInit = "start-during-init";

    /// <summary>Every row, in the order the table shows them.</summary>
    internal static IReadOnlyList<EngineRow> All { get; } =
    [
        new(None, static run =>
        {
            InferenceSession session = Create(run.Model, run.Prepacking, out double create);
            return new PreparedSession(session, create, 0, run.Init.Run(), "none");
        }),
        new(AfterCreate, static run =>
        {
            InferenceSession session = Create(run.Model, run.Prepacking, out double create);
            long prefaultStarted = Stopwatch.GetTimestamp();
            IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfFile(run.Model.Data.Path);
            string method = Prefaulted(MmapPrefault.Run(regions, run.Options), regions.Count, "MmapPrefault.Run", string.Empty);
            double prefault = Stopwatch.GetElapsedTime(prefaultStarted).TotalSeconds;
            return new PreparedSession(session, create, prefault, run.Init.Run(), method, Mappings: regions.Count);
        }),
        new(BeforeCreate, static run =>
        {
            long prefaultStarted = Stopwatch.GetTimestamp();
            MappedModel mapped = MappedModel.OpenFile(run.Model.Data.Path);
            InferenceSession session;
            double create, prefault;
            string method;
            try
            {
                method = ColdStartStrategy.Covered(MmapPrefault.Run([mapped.FileRegion(mapped.Files[0])], run.Options), "MmapPrefault.Run");
                prefault = Stopwatch.GetElapsedTime(prefaultStarted).TotalSeconds;
                session = Create(run.Model, run.Prepacking, out create);
            }
            catch
            {
                mapped.Dispose();
                throw;
            }

            // The engine has its own view now (or its own copy): the library's mapping goes, and its resident pages with it.
            long rss = ProcessMemory.RssFileBytes;
            mapped.Dispose();
            long givenBack = Math.Max(0, rss - ProcessMemory.RssFileBytes);
            method += $"; dispose gave back {Sizes.Format(givenBack)} RssFile";
            return new PreparedSession(session, create, prefault, run.Init.Run(), method, GivenBackBytes: givenBack);
        }),
        new(StartDuringInit, static run =>
        {
            InferenceSession session = Create(run.Model, run.Prepacking, out double create);
            IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfFile(run.Model.Data.Path);
            using PrefaultHandle handle = MmapPrefault.Start(regions, run.Options);
            double init = run.Init.Run();
            PrefaultResult result = handle.Completion.GetAwaiter().GetResult();
            string method = Prefaulted(result, regions.Count, "MmapPrefault.Start", " in the background");
            return new PreparedSession(session, create, result.Elapsed.TotalSeconds, init, method, Mappings: regions.Count);
        }),
    ];

    /// <summary>"on" or "off", as the rows and the table name the prepacking setting.</summary>
    internal static string Setting(bool prepacking) => prepacking ? "on" : "off";

    /// <summary>ONNX Runtime's version, from the native library.</summary>
    internal static string OrtVersion => OrtEnv.Instance().GetVersionString();

    /// <summary>
    /// Makes the weights cold, then times the row from its first step to the end of its first inference, and its
    /// second inference after that; the session is disposed before the row ends.
    /// </summary>
    [SupportedOSPlatform("linux")]
    internal static EngineRun Measure(EngineRow row, EngineModel model, bool prepacking, SimulatedInit init, BenchSettings settings, BlockDevice device)
    {
        var counters = RowCounters.Start(model.Data, CacheState.Cold, device);
        var run = new EngineRowRun(model, prepacking, init, settings.Prefault(PrefaultStrategy.Auto));
        long started = Stopwatch.GetTimestamp();
        PreparedSession prepared = row.Prepare(run);

        float[] input = MatMulChainModel.Input(model.Dim);
        Inference first;
        Inference second;
        double elapsed;
        using (prepared.Session)
        {
            first = Infer(prepared.Session, input, model.Dim);
            elapsed = Stopwatch.GetElapsedTime(started).TotalSeconds;
            second = Infer(prepared.Session, input, model.Dim);
        }

        var times = new StrategyTimes(prepared.PrefaultSeconds, first.Seconds, prepared.Method, first.Faults) { WarmPassSeconds = second.Seconds };
        Sample sample = counters.Stop(row.Name, CacheState.Cold, times, prepared.InitSeconds) with
        {
            CreateSeconds = prepared.CreateSeconds,
            Prepacking = Setting(prepacking),
            ElapsedSeconds = elapsed,
        };
        return new EngineRun(sample, first.Output, second.Output, prepared.Mappings, prepared.GivenBackBytes);
    }

    /// <summary>
    /// The session, as an application creates it; with prepacking off (<c>session.disable_prepacking</c>) ONNX
    /// Runtime maps each aligned external initializer itself and keeps the mapping, with it on it copies the weights
    /// into its own buffers at creation and unmaps the file.
    /// </summary>
    private static InferenceSession Create(EngineModel model, bool prepacking, out double seconds)
    {
        long started = Stopwatch.GetTimestamp();
        using var options = new SessionOptions { LogSeverityLevel = OrtLoggingLevel.ORT_LOGGING_LEVEL_ERROR };
        if (!prepacking)
        {
            options.AddSessionConfigEntry("session.disable_prepacking", "1");
        }

        var session = new InferenceSession(model.ModelPath, options);
        seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
        return session;
    }

    private static Inference Infer(InferenceSession session, float[] input, int dim)
    {
        using OrtValue value = OrtValue.CreateTensorValueFromMemory(input, [1, dim]);
        using var runOptions = new RunOptions();
        FaultCounts before = FaultCounts.Now();
        long started = Stopwatch.GetTimestamp();
        using IDisposableReadOnlyCollection<OrtValue> outputs = session.Run(runOptions, [MatMulChainModel.InputName], [value], [MatMulChainModel.OutputName]);
        double seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
        FaultCounts faults = FaultCounts.Now() - before;
        return new Inference(seconds, faults, outputs[0].GetTensorDataAsSpan<float>().ToArray());
    }

    /// <summary>The method, or where the engine left no mapping of the weights (prepacking on), that there was nothing to prefault.</summary>
    private static string Prefaulted(PrefaultResult result, int mappings, string call, string how) =>
        mappings == 0 ? "0 mappings found: nothing to prefault" : $"{ColdStartStrategy.Covered(result, call)}{how}, {mappings} mapped ranges";

    private readonly record struct Inference(double Seconds, FaultCounts Faults, float[] Output);
}
