namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A clock that moves only when the test says (1,000 ticks a second), or by <see cref="StepPerRead"/> every time it
/// is read: logic that decides on elapsed time is tested by what it counts, never by timing it.
/// </summary>
internal sealed class TestClock : TimeProvider
{
    private long _now;

    /// <summary>Ticks the clock moves each time it is read (0: frozen).</summary>
    public long StepPerRead { get; init; }

    public override long TimestampFrequency => 1000;

    public override long GetTimestamp() => Interlocked.Add(ref _now, StepPerRead);

    public void Advance(TimeSpan by) => Interlocked.Add(ref _now, (long)by.TotalMilliseconds);
}
