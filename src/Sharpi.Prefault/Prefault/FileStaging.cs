using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>How a mechanism stages the mappings its regions cover whole.</summary>
internal enum FolioPolicy
{
    /// <summary>2 MiB folios: the advice, or a huge-page view under writable mappings.</summary>
    HugePages,

    ReadAhead,

    /// <summary>4 KiB folios, WILLNEED a window at a time.</summary>
    Windows,
}

/// <summary>
/// Brings a chunk's file bytes in before its populate: whole mappings per the policy, sparse ones exactly. Never
/// loads a byte; ignores its failures, which the populate reports. docs/mechanisms.md says why.
/// </summary>
internal sealed unsafe partial class FileStaging : IDisposable
{
    private readonly ProcMapEntry[] _maps;
    private readonly nint[] _viewDelta; // view minus engine address; 0 without a view
    private readonly nint[] _stagedEnd;
    private readonly bool[] _exact;
    private readonly bool[] _advised;
    private readonly bool[] _adviseLater;
    private readonly nint[] _window;
    private List<(nint Address, nuint Length)>? _views;
    private Dictionary<(string Path, long Inode), (long Start, long End)>? _viewSpans;
    private bool _committed;
    private ILogger _log = Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance;
    private string _label = string.Empty;

    private FileStaging(ProcMapEntry[] maps, FolioPolicy policy)
    {
        _maps = maps;
        Policy = policy;
        _viewDelta = new nint[maps.Length];
        _stagedEnd = new nint[maps.Length];
        _exact = new bool[maps.Length];
        _advised = new bool[maps.Length];
        _adviseLater = new bool[maps.Length];
        _window = new nint[maps.Length];
    }

    internal FolioPolicy Policy { get; }

    internal long HugePageAdvisedBytes { get; private set; }

    internal long ViewBytes { get; private set; }

    internal int ViewCount => _views?.Count ?? 0;

    internal int ExactMappingCount { get; private set; }

    internal long WindowedBytes { get; private set; }

    internal long KernelReadAheadBytes { get; private set; }

    internal long KernelReadAheadWindow { get; private set; }

    internal long WindowBytes { get; private set; }

    /// <summary>What a trial may sweep.</summary>
    internal long TrialableBytes { get; private set; }

    internal long UntrialableWholeBytes { get; private set; }

    /// <summary>The device of the first whole mapping (0: none): a reused choice's key.</summary>
    internal ulong Device { get; private set; }

    internal long ChunkSizeFor(long chunkSize, long bytes, int threads) =>
        ChunkSizeFor(chunkSize, KernelReadAheadBytes, Math.Max(KernelReadAheadWindow, WindowBytes), bytes, threads);

    /// <summary>0 unless <paramref name="chunk"/> splits the set more finely than the option.</summary>
    internal static long FinerChunk(long chunk, long chunkSize, long bytes) => chunk < Math.Min(chunkSize, bytes) ? chunk : 0;

    internal const int ChunkRuleThreads = 8;

    /// <summary>Under the default option and the kernel's read-ahead: four chunks a thread (of eight at most), so streams stay too short to grow 2 MiB folios.</summary>
    internal static long ChunkSizeFor(long chunkSize, long kernelReadAheadBytes, long readAhead, long bytes, int threads)
    {
        const long Granule = 2 * 1024 * 1024;
        if (chunkSize != PrefaultOptions.DefaultChunkSize || kernelReadAheadBytes <= 0 || threads < 1 || bytes <= 0)
        {
            return chunkSize;
        }

        long fourEach = bytes / (4L * Math.Min(threads, ChunkRuleThreads)) / Granule * Granule;
        long floor = (Math.Max(readAhead, Granule) + Granule - 1) / Granule * Granule;
        return Math.Min(chunkSize, Math.Max(fourEach, floor));
    }

    /// <summary>How the file bytes came in, for the result; empty where nothing was staged.</summary>
    internal string Describe(long sweptChunk = 0)
    {
        string windows = WindowedBytes > 0
            ? $"{Sizes.Format(WindowedBytes)} read ahead in {Sizes.Format(WindowBytes)} windows (MADV_WILLNEED, 4 KiB folios)"
            : string.Empty;
        string advice = HugePageAdvisedBytes > 0 ? $"MADV_HUGEPAGE on {Sizes.Format(HugePageAdvisedBytes)} of file mappings (2 MiB folios)" : string.Empty;
        string views = ViewCount > 0 ? $"{ViewCount} huge-page staging view(s) over {Sizes.Format(ViewBytes)}" : string.Empty;
        string kernel = KernelReadAheadBytes > 0
            ? $"{Sizes.Format(KernelReadAheadBytes)} read through the device's own read-ahead ({Sizes.Format(KernelReadAheadWindow)}, the page cache's own folio sizes)"
            : string.Empty;
        string chunks = sweptChunk > 0
            ? $"swept in {Sizes.Format(sweptChunk)} chunks, not {Sizes.Format(PrefaultOptions.DefaultChunkSize)}: a small set in large chunks is a few long read-ahead streams, whose folios grow to 2 MiB"
            : string.Empty;
        return Join(Join(Join(Join(advice, views), windows), kernel), chunks);
    }

    /// <summary>With <paramref name="deferAdvice"/> (a trial) nothing is advised or mapped until <see cref="Commit"/>.</summary>
    internal static FileStaging Prepare(MergedRegion[] regions, ProcMapEntry[] maps, PrefaultMethod method, FolioPolicy policy,
        bool somethingToRead, ILogger log, string label, bool deferAdvice = false)
    {
        var staging = new FileStaging(maps, policy) { _log = log, _label = label };
        if (!OperatingSystem.IsLinux() || maps.Length == 0 || method == PrefaultMethod.Hint)
        {
            staging._committed = true;
            return staging;
        }

        bool huge = policy == FolioPolicy.HugePages;
        bool read = method == PrefaultMethod.Populate && somethingToRead;
        long[] covered = CoveredBytes(regions, maps);
        var regular = new Dictionary<string, bool>(StringComparer.Ordinal);
        // Not a tuple, whose constructor the engine's first call would JIT.
        ulong windowDevice = 0;
        long windowBytes = 0;
        long deviceReadAhead = 0;
        for (int i = 0; i < maps.Length; i++)
        {
            ProcMapEntry m = maps[i];
            if (covered[i] == 0 || m is not { IsFileBacked: true, Readable: true })
            {
                continue;
            }

            bool whole = IsCoveredWhole(covered[i], m.End - m.Start);
            if (whole)
            {
                staging.Device = staging.Device == 0 ? m.Device : staging.Device;
                if (!m.Writable && !m.IsDeleted)
                {
                    staging.TrialableBytes += covered[i];
                }
                else
                {
                    staging.UntrialableWholeBytes += covered[i];
                }
            }

            if (whole && !m.Writable && huge)
            {
                staging._adviseLater[i] = true;
                staging._stagedEnd[i] = m.End;
            }
            else if (whole && m.Writable && huge && read && !m.IsDeleted)
            {
                long end = m.Offset + (m.End - m.Start);
                staging._viewSpans ??= [];
                staging._viewSpans[(m.Path, m.Inode)] = staging._viewSpans.TryGetValue((m.Path, m.Inode), out (long Start, long End) s)
                    ? (Math.Min(s.Start, m.Offset), Math.Max(s.End, end))
                    : (m.Offset, end);
            }
            else if (read && IsRegularFile(m.Path, regular))
            {
                // Through the engine's mapping: no descriptor opened.
                if (windowBytes == 0 || windowDevice != m.Device)
                {
                    windowDevice = m.Device;
                    windowBytes = ReadAheadWindow.For(m.Device, out deviceReadAhead);
                }

                if (whole && policy == FolioPolicy.ReadAhead)
                {
                    staging.KernelReadAheadBytes += covered[i];
                    staging.KernelReadAheadWindow = Math.Max(staging.KernelReadAheadWindow, deviceReadAhead);
                    continue;
                }

                staging._exact[i] = true;
                staging._window[i] = (nint)windowBytes;
                staging._stagedEnd[i] = m.End;
                staging.ExactMappingCount++;
                staging.WindowedBytes += covered[i];
                staging.WindowBytes = Math.Max(staging.WindowBytes, windowBytes);
            }
        }

        if (!deferAdvice)
        {
            staging.Commit();
        }

        return staging;
    }

    /// <summary>Advises a trial unit's 2 MiB span (<see cref="Commit"/> merges the split back), then reads it.</summary>
    [SupportedOSPlatform("linux")]
    internal void StageUnit(nint start, nint end)
    {
        const long Huge = 2 * 1024 * 1024;
        for (int i = AddressRanges.FirstEndingAfter<ProcMapEntry>(_maps, start); i < _maps.Length && (nuint)_maps[i].Start < (nuint)end; i++)
        {
            if (!_adviseLater[i] || _advised[i])
            {
                continue;
            }

            nint from = Math.Max(_maps[i].Start, (nint)(start & ~(Huge - 1)));
            nint to = Math.Min(_maps[i].End, (nint)((end + Huge - 1) & ~(Huge - 1)));
            if ((nuint)from < (nuint)to)
            {
                _ = Interop.Libc.Madvise((void*)from, (nuint)(to - from), Interop.LinuxConstants.MADV_HUGEPAGE);
            }
        }

        Read(start, end);
    }

    /// <summary>Brings in the file bytes behind [start, end) before their populate. Allocates nothing; thread-safe.</summary>
    [SupportedOSPlatform("linux")]
    internal void Read(nint start, nint end) => Read(start, end, populateAdvised: false);

    /// <summary>Also populates advised mappings: no read-ahead call reads 2 MiB folios. Allocates nothing; thread-safe.</summary>
    [SupportedOSPlatform("linux")]
    internal void ReadAhead(nint start, nint end) => Read(start, end, populateAdvised: true);

    [SupportedOSPlatform("linux")]
    private void Read(nint start, nint end, bool populateAdvised)
    {
        if (ViewCount == 0 && ExactMappingCount == 0 && !(populateAdvised && HugePageAdvisedBytes > 0))
        {
            return;
        }

        for (int i = AddressRanges.FirstEndingAfter<ProcMapEntry>(_maps, start); i < _maps.Length && (nuint)_maps[i].Start < (nuint)end; i++)
        {
            nint from = (nuint)_maps[i].Start > (nuint)start ? _maps[i].Start : start;
            nint to = (nuint)_stagedEnd[i] < (nuint)end ? _stagedEnd[i] : end;
            if ((nuint)from >= (nuint)to)
            {
                continue;
            }

            if (populateAdvised && _advised[i])
            {
                _ = Interop.Libc.Madvise((void*)Pages.Floor(from), (nuint)(Pages.Ceiling(to) - Pages.Floor(from)), Interop.LinuxConstants.MADV_POPULATE_READ);
            }
            else if (_viewDelta[i] != 0)
            {
                nint viewStart = Pages.Floor(from + _viewDelta[i]);
                nint viewEnd = Pages.Ceiling(to + _viewDelta[i]);
                _ = Interop.Libc.Madvise((void*)viewStart, (nuint)(viewEnd - viewStart), Interop.LinuxConstants.MADV_POPULATE_READ);
            }
            else if (_exact[i])
            {
                // The kernel reads only a call's first window.
                nint last = Pages.Ceiling(to);
                for (nint piece = Pages.Floor(from); (nuint)piece < (nuint)last; piece += _window[i])
                {
                    nint pieceEnd = (nuint)(last - piece) > (nuint)_window[i] ? piece + _window[i] : last;
                    _ = Interop.Libc.Madvise((void*)piece, (nuint)(pieceEnd - piece), Interop.LinuxConstants.MADV_WILLNEED);
                }
            }
        }
    }

    /// <summary>By a stat, nothing opened.</summary>
    private static bool IsRegularFile(string path, Dictionary<string, bool> known)
    {
        if (!known.TryGetValue(path, out bool isRegular))
        {
            isRegular = FileStatus.TryOf(path) is { Kind: FileKind.Regular };
            known[path] = isRegular;
        }

        return isRegular;
    }

    private static string Join(string first, string second) => first.Length == 0 ? second : second.Length == 0 ? first : $"{first}; {second}";

    /// <summary>All but 2% (headers, padding); sparser is read exactly, or 2 MiB folios would pull in neighbours.</summary>
    private static bool IsCoveredWhole(long covered, long mapped) => covered >= mapped - (mapped / 50);

    /// <summary>Bytes of the whole pages the regions touch in each mapping, capped at its size.</summary>
    private static long[] CoveredBytes(MergedRegion[] regions, ProcMapEntry[] maps)
    {
        long[] covered = new long[maps.Length];
        foreach (MergedRegion r in regions)
        {
            foreach (MapPiece piece in ProcMaps.Pieces(maps, r.Start, r.End))
            {
                if (!piece.IsGap)
                {
                    covered[piece.Index] += Pages.Ceiling(piece.End) - Pages.Floor(piece.Start);
                }
            }
        }

        for (int i = 0; i < maps.Length; i++)
        {
            covered[i] = Math.Min(covered[i], maps[i].End - maps[i].Start);
        }

        return covered;
    }
}
