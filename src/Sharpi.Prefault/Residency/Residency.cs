using System.IO.MemoryMappedFiles;

namespace Sharpi.Prefault;

/// <summary>Measures how much of mapped memory or a file is resident, without touching a page.</summary>
/// <remarks>On Windows residency is this process's working set, not the file cache.</remarks>
public static class Residency
{
    /// <summary>True on Linux, macOS, FreeBSD and Windows.</summary>
    [SupportedOSPlatformGuard("linux")]
    [SupportedOSPlatformGuard("macos")]
    [SupportedOSPlatformGuard("freebsd")]
    [SupportedOSPlatformGuard("windows")]
    public static bool IsSupported => FileCacheProbe.IsSupported;

    /// <summary>Residency of one region.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The region has a negative length.</exception>
    public static ResidencyInfo Measure(PrefaultRegion region)
    {
        ReadOnlySpan<PrefaultRegion> one = [region];
        RegionSet.Validate(one, nameof(region));
        return Measure(one);
    }

    /// <summary>Residency of regions, merged first so overlapping regions count once.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="regions"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A region has a negative length.</exception>
    public static ResidencyInfo Measure(IReadOnlyList<PrefaultRegion> regions)
        => Measure(RegionList.Checked(regions));

    private static ResidencyInfo Measure(ReadOnlySpan<PrefaultRegion> regions)
    {
        MergedRegion[] merged = RegionSet.Merge(regions);
        long total = RegionSet.TotalBytes(merged);
        if (!IsSupported)
        {
            return new ResidencyInfo(total, 0, false, UnsupportedMessage);
        }

        var counts = new RangeResidency[merged.Length];
        long resident = FileCacheProbe.CountResident(merged, ProcMaps.ReadFor(merged), out long unknown, counts);
        string? error = null;
        for (int i = 0; i < merged.Length && error is null; i++)
        {
            error = WhyNotCounted(merged[i], counts[i]) is string why ? $"{merged[i].DisplayName}: {why}" : null;
        }

        return new ResidencyInfo(total, resident, true, error) { UnknownBytes = unknown };
    }

    /// <summary>Residency of each region on its own, in order.</summary>
    /// <exception cref="ArgumentNullException"><paramref name="regions"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A region has a negative length.</exception>
    public static ResidencyInfo[] MeasureEach(IReadOnlyList<PrefaultRegion> regions)
        => MeasureEach(RegionList.Checked(regions));

    private static ResidencyInfo[] MeasureEach(ReadOnlySpan<PrefaultRegion> regions)
    {
        var results = new ResidencyInfo[regions.Length];
        if (!IsSupported)
        {
            for (int i = 0; i < regions.Length; i++)
            {
                results[i] = new ResidencyInfo(regions[i].Length, 0, false, UnsupportedMessage);
            }

            return results;
        }

        var ranges = new MergedRegion[regions.Length];
        for (int i = 0; i < regions.Length; i++)
        {
            ranges[i] = new MergedRegion(regions[i].Address, regions[i].End, regions[i].Name, i);
        }

        var counts = new RangeResidency[ranges.Length];
        FileCacheProbe.CountResident(ranges, ProcMaps.ReadFor(RegionSet.Merge(regions)), counts);
        for (int i = 0; i < regions.Length; i++)
        {
            PrefaultRegion r = regions[i];
            string? why = r.IsEmpty ? null : WhyNotCounted(ranges[i], counts[i]);
            results[i] = new ResidencyInfo(r.Length, counts[i].ResidentBytes, true, why is null ? null : $"{r.Name ?? $"0x{r.Address:X}"}: {why}")
            {
                UnknownBytes = counts[i].UnknownBytes,
            };
        }

        return results;
    }

    /// <summary>Page-cache residency of a whole file (like <c>fincore</c>).</summary>
    /// <exception cref="FileNotFoundException">The file does not exist.</exception>
    /// <exception cref="IOException">The file cannot be opened or mapped.</exception>
    public static ResidencyInfo OfFile(string path) => OfFile(path, 0, -1);

    /// <summary>Page-cache residency of a file range; length -1 means to the end.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The range lies outside the file.</exception>
    /// <exception cref="FileNotFoundException">The file does not exist.</exception>
    /// <exception cref="IOException">The file cannot be opened or mapped.</exception>
    public static ResidencyInfo OfFile(string path, long offset, long length)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        FileStatus.ThrowIfNotRegular(path);
        using FileStream stream = FileOpener.OpenReadStream(path, bufferSize: 1);
        long fileLength = stream.Length;
        if (length == -1)
        {
            ArgumentOutOfRangeException.ThrowIfGreaterThan(offset, fileLength);
            length = fileLength - offset;
        }

        ThrowHelper.ThrowIfRangeOutside(offset, length, fileLength, nameof(offset), nameof(length));
        bool supported = IsSupported && !OperatingSystem.IsWindows();
        if (length == 0)
        {
            return new ResidencyInfo(0, 0, supported);
        }

        if (!supported)
        {
            return new ResidencyInfo(length, 0, false, OperatingSystem.IsWindows() ? FileCacheUnsupportedOnWindows : UnsupportedMessage);
        }

        if (OperatingSystem.IsLinux() && FileCacheProbe.HidesCache(stream.SafeFileHandle, path))
        {
            // A fresh mapping has no page of its own mapped: of a file whose cache the kernel hides, nothing can be told.
            return new ResidencyInfo(length, 0, true, $"{path}: {Unknown(length)}") { UnknownBytes = length };
        }

        try
        {
            return MeasureMapped(stream, offset, length);
        }
        catch (UnauthorizedAccessException) when ((OperatingSystem.IsLinux() || OperatingSystem.IsMacOS())
            && FileOpener.MmapRefusal(stream.SafeFileHandle, Math.Min(length, OfFileWindow), path) is PlatformCallException refusal)
        {
            // The open succeeded: the framework's "access denied" was mmap's, and the error says so.
            throw refusal;
        }
    }

    // In windows of at most 64 GiB: one view of a very large sparse file can exceed what one mmap gets.
    private static ResidencyInfo MeasureMapped(FileStream stream, long offset, long length)
    {
        using MemoryMappedFile map = MemoryMappedFile.CreateFromFile(stream, null, 0, MemoryMappedFileAccess.Read, HandleInheritability.None, leaveOpen: true);
        long resident = 0, unknown = 0;
        string? error = null;
        for (long at = offset; at < offset + length; at += OfFileWindow)
        {
            long bytes = Math.Min(OfFileWindow, offset + length - at);
            using MemoryMappedViewAccessor view = map.CreateViewAccessor(at, bytes, MemoryMappedFileAccess.Read);
            ResidencyInfo part = Measure(PrefaultRegion.FromView(view, 0, bytes));
            resident += part.ResidentBytes;
            unknown += part.UnknownBytes;
            error ??= part.Error;
        }

        return new ResidencyInfo(length, resident, true, error) { UnknownBytes = unknown };
    }

    private const long OfFileWindow = 64L << 30;

    /// <summary>Why a range's count is no answer, or null when it is one.</summary>
    private static string? WhyNotCounted(MergedRegion range, RangeResidency count)
    {
        if (OperatingSystem.IsWindows())
        {
            if (!WorkingSet.IsCommitted(range.Start, range.End, out int committed))
            {
                return $"not mapped, {PlatformError.FromWin32("VirtualQuery", committed).Describe()}";
            }

            return count.IsCounted ? null : $"QueryWorkingSetEx failed, {count.Error.Describe()}";
        }

        return !count.IsCounted ? $"not mapped, {count.Error.Describe()}"
            : count.UnknownBytes > 0 ? Unknown(count.UnknownBytes)
            : null;
    }

    /// <summary>Why some bytes have no residency figure, and what would give them one.</summary>
    internal static string Unknown(long bytes) =>
        $"residency unknown for {Sizes.Format(bytes)}: the kernel does not tell the page-cache residency of a file this user cannot write "
        + "(cachestat refuses with EPERM; mincore reports every page resident); only pages this process maps are counted. "
        + "Measure as the file's owner or root, or with write access to it.";

    private const string UnsupportedMessage = "Residency needs mincore (Linux, macOS) or QueryWorkingSetEx (Windows); this platform has neither.";

    private const string FileCacheUnsupportedOnWindows =
        "Windows has no public query for a file's cached pages; residency of mapped memory (Residency.Measure) is this process's working set.";
}
