using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// One pass of a run: the device the file was on (<c>--device</c>; null for the file where it is) and the
/// read_ahead_kb set for it (<c>--read-ahead-kb</c>; null where the run left it as it was). Rows, tables, limits and
/// verdicts are per pass.
/// </summary>
internal readonly record struct RunPass(string? Device, int? ReadAheadKb)
{
    /// <summary>"read_ahead_kb 128", "ram-xfs, read_ahead_kb 128", "ram-xfs" or "read_ahead_kb as set".</summary>
    internal string Describe(string unchanged = "read_ahead_kb as set")
    {
        string? readAhead = ReadAheadKb is int kb ? string.Create(CultureInfo.InvariantCulture, $"read_ahead_kb {kb}") : null;
        return (Device, readAhead) switch
        {
            (null, null) => unchanged,
            (null, string ra) => ra,
            (string device, null) => device,
            (string device, string ra) => $"{device}, {ra}",
        };
    }
}
