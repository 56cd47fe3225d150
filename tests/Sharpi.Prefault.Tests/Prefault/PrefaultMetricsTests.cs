using System.Collections.Concurrent;
using System.Diagnostics.Metrics;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>The prefault's instruments as an OpenTelemetry user sees them: names, units, attributes, values.</summary>
public sealed class PrefaultMetricsTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_PublishesItsInstruments_WithConventionalNamesUnitsAndAttributes()
    {
        using var recorder = MeasurementRecorder.OfANewLabel();
        using TestFile file = TestFile.Create(4 * TestFile.MiB);
        using MappedFile map = file.Map();

        MmapPrefault.Run([map.Region()], new PrefaultOptions { Label = recorder.Label });

        Assert.Equal("By", recorder.Units["sharpi.prefault.swept"]);
        Assert.Equal("By", recorder.Units["sharpi.prefault.already_resident"]);
        Assert.Equal("s", recorder.Units["sharpi.prefault.duration"]);
        Assert.Equal("{run}", recorder.Units["sharpi.prefault.runs"]);
        Assert.Equal(file.Length, recorder.Sum("sharpi.prefault.swept"));
        Assert.Equal(1, recorder.Count("sharpi.prefault.duration"));
        Measurement run = Assert.Single(recorder.Of("sharpi.prefault.runs"));
        Assert.Equal(recorder.Label, run.Tags["sharpi.prefault.label"]);
        Assert.Equal("populate", run.Tags["sharpi.prefault.method"]);
        Assert.Equal("completed", run.Tags["sharpi.prefault.outcome"]);
        Assert.All(recorder.All, m => Assert.DoesNotContain(m.Tags.Keys, k => !k.StartsWith("sharpi.prefault.", StringComparison.Ordinal)));
    }

    [Fact]
    public void Run_OverNothing_CountsASkippedRun()
    {
        using var recorder = MeasurementRecorder.OfANewLabel();

        MmapPrefault.Run([], new PrefaultOptions { Label = recorder.Label });

        Measurement run = Assert.Single(recorder.Of("sharpi.prefault.runs"));
        Assert.Equal("skipped", run.Tags["sharpi.prefault.outcome"]);
        Assert.Empty(recorder.Of("sharpi.prefault.duration"));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_CancelledBeforeItsSweep_CountsACancelledRun_NotASkippedOne()
    {
        using var recorder = MeasurementRecorder.OfANewLabel();
        using TestFile file = TestFile.Create(4 * TestFile.MiB);
        using MappedFile map = file.Map();

        PrefaultResult result = MmapPrefault.Run([map.Region()], new PrefaultOptions { Label = recorder.Label }, new CancellationToken(canceled: true));

        Assert.False(result.HasRun);
        Measurement run = Assert.Single(recorder.Of("sharpi.prefault.runs"));
        Assert.Equal("cancelled", run.Tags["sharpi.prefault.outcome"]); // a shutdown's cancellation stays one on a dashboard
    }

    [Fact]
    public void NoInstrumentName_CarriesAUnit()
    {
        string[] units = ["bytes", "seconds", "_ms", "_s", "count"];
        System.Runtime.CompilerServices.RuntimeHelpers.RunClassConstructor(typeof(PrefaultMetrics.Instruments).TypeHandle);
        using var recorder = new MeasurementRecorder(label: "unused");

        Assert.NotEmpty(recorder.Units);
        Assert.All(recorder.Units.Keys, name => Assert.DoesNotContain(units, u => name.EndsWith(u, StringComparison.Ordinal)));
    }

    internal sealed record Measurement(string Instrument, double Value, IReadOnlyDictionary<string, object?> Tags);

    /// <summary>Every measurement of the Sharpi.Prefault meter tagged with one label, and every instrument's unit.</summary>
    internal sealed class MeasurementRecorder : IDisposable
    {
        private readonly MeterListener _listener = new();
        private readonly string _label;

        /// <summary>A recorder of a label no other run uses, for a test's own run.</summary>
        internal static MeasurementRecorder OfANewLabel() => new($"metrics-{Guid.NewGuid():N}");

        internal MeasurementRecorder(string label)
        {
            _label = label;
            _listener.InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Meter.Name == "Sharpi.Prefault")
                {
                    Units[instrument.Name] = instrument.Unit;
                    l.EnableMeasurementEvents(instrument);
                }
            };
            _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Add(instrument, value, tags));
            _listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Add(instrument, value, tags));
            _listener.Start();
        }

        internal string Label => _label;

        internal ConcurrentDictionary<string, string?> Units { get; } = new();

        internal ConcurrentQueue<Measurement> All { get; } = new();

        internal IEnumerable<Measurement> Of(string instrument) => All.Where(m => m.Instrument == instrument);

        internal double Sum(string instrument) => Of(instrument).Sum(m => m.Value);

        internal int Count(string instrument) => Of(instrument).Count();

        public void Dispose() => _listener.Dispose();

        private void Add(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            var copy = new Dictionary<string, object?>(StringComparer.Ordinal);
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                copy[tag.Key] = tag.Value;
            }

            if (copy.TryGetValue("sharpi.prefault.label", out object? label) && (string?)label == _label)
            {
                All.Enqueue(new Measurement(instrument.Name, value, copy));
            }
        }
    }
}
