using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The samples of one <c>firstcall</c> run, pass by pass: per round, the warm samples (every host over a file made
/// warm at the round's start), then the cold ones (every host and C reader, each after its own eviction and settle),
/// each round starting at another host or reader, so drift on a shared machine spreads over all of them alike.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class FirstCallRun(WeightsFile file, string[] kinds, Dictionary<string, string> hosts, CReaders? readers, string[] modes, bool byPrefault,
    int samples, ProgressLine progress, string? device = null)
{
    internal FirstCallPass RunPass(int? readAheadKb, bool warm, bool cold, ReportingSettle? settle)
    {
        string pass = (device is null ? string.Empty : device + ", ") + (readAheadKb is int kb ? $"read_ahead_kb {kb}, " : string.Empty);
        var warmSamples = warm ? kinds.ToDictionary(static k => k, static _ => new List<FirstCallSample>()) : [];
        (string Row, string? Host, string? Mode)[] coldRows = cold
            ? [.. kinds.Select(static k => (k, (string?)k, (string?)null)), .. readers is null ? [] : modes.Select(static m => (CReaders.RowName(m), (string?)null, (string?)m))]
            : [];
        var coldSamples = coldRows.ToDictionary(static r => r.Row, static _ => new List<FreshSample>());
        int rewarmed = 0;
        for (int i = 0; i < samples; i++)
        {
            if (warm)
            {
                // Warm as the library leaves it, made again each round where cold samples (or a C reader) left the file otherwise.
                if (i == 0 || cold)
                {
                    FirstCallCommand.MakeWarm(file, byPrefault, progress);
                }

                for (int j = 0; j < kinds.Length; j++)
                {
                    string kind = kinds[(i + j) % kinds.Length];
                    progress.Begin($"{pass}sample {i + 1}/{samples}: warm, {kind}");
                    FirstCallSample sample = FirstCallHosts.Run(kind, hosts[kind], file.Path);
                    if (sample.ResidentBefore < file.Length)
                    {
                        rewarmed++; // something evicted the file: that sample measured a read, not the fixed cost
                        FirstCallCommand.MakeWarm(file, byPrefault, progress);
                        sample = FirstCallHosts.Run(kind, hosts[kind], file.Path);
                    }

                    warmSamples[kind].Add(sample);
                }
            }

            for (int j = 0; j < coldRows.Length; j++)
            {
                (string row, string? host, string? mode) = coldRows[(i + j) % coldRows.Length];
                string label = $"{pass}sample {i + 1}/{samples}: cold, {row}";
                progress.Begin(label);
                CacheControl.Establish(file, CacheState.Cold);
                double? settled = settle?.Wait(label);
                FreshSample sample = host is not null ? FreshSample.Of(ColdHost(host)) : readers!.Run(mode!, file.Path);
                coldSamples[row].Add(sample with { SettleSeconds = settled });
            }
        }

        return new FirstCallPass(device, readAheadKb, warmSamples, coldSamples, rewarmed);
    }

    /// <summary>A host's cold sample; one whose first call did not sweep the file would carry figures it did not earn.</summary>
    private FirstCallSample ColdHost(string kind)
    {
        FirstCallSample sample = FirstCallHosts.Run(kind, hosts[kind], file.Path);
        return sample.HasRun
            ? sample
            : throw new BenchException($"The {kind} host's first MmapPrefault.Run did not run over the cold file (method {sample.Method}): its load would not be one.");
    }
}

/// <summary>
/// One read-ahead pass of <c>firstcall</c> on one device (null: the file where it is, with no <c>--device</c> named):
/// the warm samples per host, the cold ones per host and C reader (rows in run order).
/// </summary>
internal sealed record FirstCallPass(string? Device, int? ReadAheadKb, Dictionary<string, List<FirstCallSample>> Warm, Dictionary<string, List<FreshSample>> Cold, int Rewarmed);
