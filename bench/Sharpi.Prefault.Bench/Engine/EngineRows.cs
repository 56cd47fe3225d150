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

/// <summary>
/// The engine rows: a real ONNX Runtime session (CPU provider) over <see cref="EngineModel"/>, created cold, then the
/// same simulated init, then two inferences, with the prefault placed where an integration would put it.
/// </summary>
internal static class EngineRows
{
    internal const string None = "none";
    internal const string AfterCreate = "prefault-after-create";
    internal const string BeforeCreate = "prefault-before-create";
    internal const string StartDuringInit = "start-during-init";

    internal static readonly string[] All = [None, AfterCreate, BeforeCreate, StartDuringInit];

    /// <summary>"on" or "off", as the rows and the table name the prepacking setting.</summary>
    internal static string Setting(bool prepacking) => prepacking ? "on" : "off";

    /// <summary>ONNX Runtime's version, from the native library.</summary>
    internal static string OrtVersion => OrtEnv.Instance().GetVersionString();

    /// <summary>
    /// Makes the weights cold, then times the row from its first step to the end of its first inference, and its
    /// second inference after that; the session is disposed before the row ends.
    /// </summary>
    [SupportedOSPlatform("linux")]
    internal static EngineRun Measure(string row, EngineModel model, bool prepacking, SimulatedInit init, BenchSettings settings, BlockDevice device)
    {
        var counters = RowCounters.Start(model.Data, CacheState.Cold, device);
        PrefaultOptions options = settings.Prefault(PrefaultStrategy.Auto);
        string data = model.Data.Path;
        long started = Stopwatch.GetTimestamp();
        double create;
        double prefault = 0;
        double initSeconds;
        int? mappings = null;
        long? givenBack = null;
        string method;
        InferenceSession session;
        switch (row)
        {
            case AfterCreate:
            {
                session = Create(model, prepacking, out create);
                long prefaultStarted = Stopwatch.GetTimestamp();
                IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfFile(data);
                method = Prefaulted(MmapPrefault.Run(regions, options), regions.Count, "MmapPrefault.Run", string.Empty);
                prefault = Stopwatch.GetElapsedTime(prefaultStarted).TotalSeconds;
                mappings = regions.Count;
                initSeconds = init.Run();
                break;
            }

            case BeforeCreate:
            {
                long prefaultStarted = Stopwatch.GetTimestamp();
                MappedModel mapped = MappedModel.OpenFile(data);
                try
                {
                    method = ColdStartStrategy.Covered(MmapPrefault.Run([mapped.FileRegion(mapped.Files[0])], options), "MmapPrefault.Run");
                    prefault = Stopwatch.GetElapsedTime(prefaultStarted).TotalSeconds;
                    session = Create(model, prepacking, out create);
                }
                catch
                {
                    mapped.Dispose();
                    throw;
                }

                // The engine has its own view now (or its own copy): the library's mapping goes, and its resident pages with it.
                long rss = ProcessMemory.RssFileBytes;
                mapped.Dispose();
                givenBack = Math.Max(0, rss - ProcessMemory.RssFileBytes);
                method += $"; dispose gave back {Sizes.Format(givenBack.Value)} RssFile";
                initSeconds = init.Run();
                break;
            }

            case StartDuringInit:
            {
                session = Create(model, prepacking, out create);
                IReadOnlyList<PrefaultRegion> regions = NativeMappings.OfFile(data);
                using PrefaultHandle handle = MmapPrefault.Start(regions, options);
                initSeconds = init.Run();
                PrefaultResult result = handle.Completion.GetAwaiter().GetResult();
                method = Prefaulted(result, regions.Count, "MmapPrefault.Start", " in the background");
                prefault = result.Elapsed.TotalSeconds;
                mappings = regions.Count;
                break;
            }

            default:
                session = Create(model, prepacking, out create);
                method = "none";
                initSeconds = init.Run();
                break;
        }

        float[] input = MatMulChainModel.Input(model.Dim);
        Inference first;
        Inference second;
        double elapsed;
        using (session)
        {
            first = Infer(session, input, model.Dim);
            elapsed = Stopwatch.GetElapsedTime(started).TotalSeconds;
            second = Infer(session, input, model.Dim);
        }

        var times = new StrategyTimes(prefault, first.Seconds, method, first.Faults) { SecondPassSeconds = second.Seconds };
        Sample sample = counters.Stop(row, CacheState.Cold, times, initSeconds) with
        {
            CreateSeconds = create,
            Prepacking = Setting(prepacking),
            ElapsedSeconds = elapsed,
        };
        return new EngineRun(sample, first.Output, second.Output, mappings, givenBack);
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
