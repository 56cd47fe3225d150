using System.Diagnostics.Metrics;

namespace Sharpi.Prefault.Tests.Locking;

/// <summary>Lock and reclaim report their bytes on the Sharpi.Prefault meter, by label and outcome.</summary>
[Collection(ProcessMemoryFigures.Name)]
public sealed class LockReclaimMetricsTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public void LockAndReclaim_RecordTheirBytes_ByLabelAndOutcome()
    {
        string label = $"metrics-{Guid.NewGuid():N}";
        using TestFile file = TestFile.Create(2 * TestFile.MiB);
        using MappedFile map = file.Map();
        var seen = new List<(string Instrument, string? Unit, long Bytes, string? Outcome)>();
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
            string? tagLabel = null, outcome = null;
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                tagLabel = tag.Key == "sharpi.prefault.label" ? tag.Value as string : tagLabel;
                outcome = tag.Key == "sharpi.prefault.outcome" ? tag.Value as string : outcome;
            }

            if (tagLabel == label)
            {
                lock (seen)
                {
                    seen.Add((instrument.Name, instrument.Unit, value, outcome));
                }
            }
        });
        listener.Start();

        using (MmapLock.Lock([map.Region(0, TestFile.MiB)], new LockOptions { Label = label }))
        {
            MmapReclaim.Release([map.Region()], new ReclaimOptions { Label = label });
        }

        Assert.Contains(("sharpi.lock.size", "By", TestFile.MiB, "locked"), seen);
        Assert.Contains(("sharpi.reclaim.size", "By", TestFile.MiB, "released"), seen);
        Assert.Contains(("sharpi.reclaim.size", "By", TestFile.MiB, "kept"), seen);
    }
}
