using System.Diagnostics.Metrics;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Prefault;

public sealed class PrefaultMetricsTests
{
    [LinuxFact]
    public void Run_PublishesBytesAndDuration_OnTheSharpiPrefaultMeter()
    {
        string label = $"metrics-{Guid.NewGuid():N}";
        long bytes = 0;
        int durations = 0;
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == "Sharpi.Prefault")
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
        {
            if (instrument.Name == "sharpi.prefault.bytes" && HasLabel(tags, label))
            {
                Interlocked.Add(ref bytes, value);
            }
        });
        listener.SetMeasurementEventCallback<double>((instrument, _, tags, _) =>
        {
            if (instrument.Name == "sharpi.prefault.duration" && HasLabel(tags, label))
            {
                Interlocked.Increment(ref durations);
            }
        });
        listener.Start();
        using TestFile file = TestFile.Create(4 * TestFile.MiB);
        using MappedFile map = file.Map();

        MmapPrefault.Run([map.Region()], PrefaultOptions.Default with { Label = label });

        Assert.Equal(file.Length, bytes);
        Assert.Equal(1, durations);
    }

    private static bool HasLabel(ReadOnlySpan<KeyValuePair<string, object?>> tags, string label)
    {
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            if (tag.Key == "label" && (string?)tag.Value == label)
            {
                return true;
            }
        }

        return false;
    }
}
