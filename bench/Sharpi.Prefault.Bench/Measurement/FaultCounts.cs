namespace Sharpi.Prefault.Bench;

/// <summary>
/// Page-fault counters from <c>getrusage</c>, this process plus its waited-for children (for the vmtouch row), and
/// the bytes they had read from storage (<c>ru_inblock</c>, 512-byte units: every read bio the threads submitted,
/// O_DIRECT, read-ahead and populate alike; page-cache hits count nothing).
/// </summary>
internal readonly record struct FaultCounts(long Minor, long Major, long StorageBytes = 0)
{
    internal static unsafe FaultCounts Now()
    {
        if (!OperatingSystem.IsLinux() && !OperatingSystem.IsMacOS())
        {
            return default;
        }

        Interop.Libc.RUsage self;
        Interop.Libc.RUsage children;
        if (Interop.Libc.Getrusage(Interop.Libc.RUSAGE_SELF, &self) != 0 || Interop.Libc.Getrusage(Interop.Libc.RUSAGE_CHILDREN, &children) != 0)
        {
            return default;
        }

        return new FaultCounts(self.MinorFaults + children.MinorFaults, self.MajorFaults + children.MajorFaults,
            (self.BlockInputs + children.BlockInputs) * 512);
    }

    public static FaultCounts operator -(FaultCounts after, FaultCounts before) =>
        new(after.Minor - before.Minor, after.Major - before.Major, after.StorageBytes - before.StorageBytes);
}
