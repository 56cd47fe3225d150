using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// What every row measures around itself, in every command alike: the file brought into the row's cache state and
/// checked (<see cref="CacheControl.Establish"/>), a cold row's wait for free page reporting to settle where one is
/// given (<see cref="ReportingSettle"/>), then from there to the row's end its faults, the disk's reads (where a device
/// is given) and the file's residency.
/// </summary>
[SupportedOSPlatform("linux")]
internal readonly struct RowCounters
{
    private readonly WeightsFile _file;
    private readonly BlockDevice? _device;
    private readonly double _residentBefore;
    private readonly DiskStats? _disk;
    private readonly FaultCounts _faults;
    private readonly double? _settleSeconds;

    private RowCounters(WeightsFile file, CacheState cache, BlockDevice? device, Func<double>? settle)
    {
        _file = file;
        _device = device;
        _residentBefore = CacheControl.Establish(file, cache);
        _settleSeconds = cache == CacheState.Cold ? settle?.Invoke() : null;
        _disk = device is null ? null : DiskStats.Now(device);
        _faults = FaultCounts.Now();
    }

    /// <param name="settle">A cold row's wait after its eviction, returning the seconds it waited; null for none.</param>
    internal static RowCounters Start(WeightsFile file, CacheState cache, BlockDevice? device, Func<double>? settle = null) => new(file, cache, device, settle);

    /// <summary>The row's sample: its times, with the counters taken from <see cref="Start"/> to now.</summary>
    internal Sample Stop(string row, CacheState cache, StrategyTimes times, double? initSeconds = null)
    {
        FaultCounts faults = FaultCounts.Now() - _faults;
        DiskStats? disk = _device is null ? null : DiskStats.Now(_device) - _disk;
        double residentAfter = Residency.OfFile(_file.Path).Percent;
        return new Sample(row, cache, times, faults, _residentBefore, residentAfter, initSeconds) { Disk = disk, SettleSeconds = _settleSeconds };
    }
}
