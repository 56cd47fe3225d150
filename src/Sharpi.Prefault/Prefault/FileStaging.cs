using System.Runtime.Versioning;
using Microsoft.Extensions.Logging;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

/// <summary>How a populate mechanism brings in the mappings its regions cover whole (those covered sparsely are always read exactly).</summary>
internal enum FolioPolicy
{
    /// <summary>The huge-page advice on read-only mappings and a huge-page staging view under writable ones: 2 MiB folios, whatever read_ahead_kb says.</summary>
    HugePages,

    /// <summary>Nothing staged: the populate reads through the device's own read-ahead, in the page cache's own folio sizes.</summary>
    ReadAhead,

    /// <summary>MADV_WILLNEED in the device's read-ahead windows before each chunk's populate: 4 KiB folios, requests as large as the device takes.</summary>
    Windows,
}

/// <summary>
/// How the file bytes under each mapping come into the page cache for one populate mechanism (Linux), applied by the
/// sweep before it populates each chunk: a mapping the regions cover whole as its <see cref="FolioPolicy"/> says; one
/// covered sparsely (a tensor selection, a run the RAM budget cut) read exactly, <c>MADV_WILLNEED</c> of just the
/// chunk's bytes in read-ahead windows, so a selection pulls in no neighbours. Nothing here loads a byte: views and
/// mappings are only advised or populated, so a file that shrinks meanwhile makes these calls fail softly, and
/// failures here are ignored (the populate after them reports what matters). docs/mechanisms.md says why each path.
/// </summary>
internal sealed unsafe class FileStaging : IDisposable
{
    private readonly ProcMapEntry[] _maps;
    private readonly nint[] _viewDelta;          // per mapping: view address minus engine address; 0 without a view
    private readonly nint[] _stagedEnd;          // per mapping: the engine address where the file's bytes end
    private readonly bool[] _exact;              // per mapping: read its chunks exactly
    private readonly bool[] _advised;            // per mapping: given the huge-page advice
    private readonly bool[] _adviseLater;        // per mapping: advised at Commit (a trial run advises its units first)
    private readonly nint[] _window;             // per mapping read exactly: the bytes one WILLNEED reads on its device
    private List<(nint Address, nuint Length)>? _views; // made with the first view: most runs map none, and the list is compiled at the first call
    private Dictionary<(string Path, long Inode), (long Start, long End)>? _viewSpans; // views to map at Commit
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

    /// <summary>How the mappings covered whole come in.</summary>
    internal FolioPolicy Policy { get; }

    /// <summary>Bytes of the mappings given the huge-page advice.</summary>
    internal long HugePageAdvisedBytes { get; private set; }

    /// <summary>Bytes of the staging views mapped (address space, not memory).</summary>
    internal long ViewBytes { get; private set; }

    internal int ViewCount => _views?.Count ?? 0;

    /// <summary>Mappings whose chunks are read exactly before their populate.</summary>
    internal int ExactMappingCount { get; private set; }

    /// <summary>Bytes of the regions under mappings read exactly, in read-ahead windows.</summary>
    internal long WindowedBytes { get; private set; }

    /// <summary>Bytes of the regions under mappings covered whole that the populate reads through the device's own read-ahead.</summary>
    internal long KernelReadAheadBytes { get; private set; }

    /// <summary>The device's read-ahead under <see cref="KernelReadAheadBytes"/> (the largest, where there are several).</summary>
    internal long KernelReadAheadWindow { get; private set; }

    /// <summary>The largest read-ahead window used (<see cref="ReadAheadWindow"/>); 0 when nothing is read in windows.</summary>
    internal long WindowBytes { get; private set; }

    /// <summary>Bytes of the regions under mappings covered whole, read-only and file-backed: what a trial may sweep.</summary>
    internal long TrialableBytes { get; private set; }

    /// <summary>Bytes of the regions under mappings covered whole that cannot take part in a trial (writable, or not files).</summary>
    internal long UntrialableWholeBytes { get; private set; }

    /// <summary>The device of the first mapping covered whole (0 where none): what a reused choice is keyed on.</summary>
    internal ulong Device { get; private set; }

    /// <summary>The sweep's chunk size under the default option (see <see cref="ChunkSizeFor(long, long, long, long, int)"/>).</summary>
    internal long ChunkSizeFor(long chunkSize, long bytes, int threads) =>
        ChunkSizeFor(chunkSize, KernelReadAheadBytes, Math.Max(KernelReadAheadWindow, WindowBytes), bytes, threads);

    /// <summary>
    /// <paramref name="chunk"/> (from <see cref="ChunkSizeFor(long, long, int)"/>) where it splits a set of
    /// <paramref name="bytes"/> more finely than the option's <paramref name="chunkSize"/> would; else 0.
    /// </summary>
    internal static long FinerChunk(long chunk, long chunkSize, long bytes) => chunk < Math.Min(chunkSize, bytes) ? chunk : 0;

    /// <summary>The threads <see cref="ChunkSizeFor(long, long, long, long, int)"/> counts at most.</summary>
    internal const int ChunkRuleThreads = 8;

    /// <summary>
    /// Where the populate reads through the kernel's own read-ahead and the option is the default: each of up to eight
    /// threads gets up to four chunks, each a whole number of 2 MiB and no smaller than the read-ahead
    /// (<paramref name="readAhead"/>), since a set of a chunk or two a thread is a few long streams whose folios grow
    /// to 2 MiB. Elsewhere the option's <paramref name="chunkSize"/>.
    /// </summary>
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

    /// <summary>
    /// How the file bytes came in, for the result: the huge-page advice, the views, the windows, the device's
    /// read-ahead; empty where nothing was staged (a hint, a touch, everything resident, not Linux).
    /// <paramref name="sweptChunk"/>: the chunk size the sweep used where it split the set more finely than the option
    /// (see <see cref="FinerChunk"/>); 0 elsewhere.
    /// </summary>
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

    /// <summary>
    /// Decides, for each mapping under <paramref name="regions"/>, how its bytes come in under <paramref name="policy"/>
    /// (see the type's summary). The huge-page advice needs any sweep but a hint; views and exact reads need a populate
    /// with something still to read. With <paramref name="deferAdvice"/> (a trial run) no mapping is advised and no
    /// view mapped until <see cref="Commit"/>: a trial advises only its units (<see cref="StageUnit"/>).
    /// </summary>
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
        // The last device's window (a model's files share one device), in two locals rather than a tuple, whose
        // constructor an engine's first call would have the JIT compile.
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
                // Through the engine's own mapping: MADV_WILLNEED of a file mapping is the kernel's WILLNEED of the
                // mapped file's bytes, so no descriptor is opened or held. One call over more than a window reads
                // only its first window (ReadAheadWindow), so the reads go a window at a time.
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

    /// <summary>
    /// Gives the huge-page advice to the mappings this policy advises whole and maps the staging views, once: after the
    /// trial that chose this mechanism, or at once where there was none. A view is one more mapping: near
    /// vm.max_map_count the runtime aborts the process when it cannot map its own memory, so views are made only while
    /// there is room, and the rest keep the plain populate.
    /// </summary>
    internal void Commit()
    {
        if (_committed || !OperatingSystem.IsLinux())
        {
            _committed = true;
            return;
        }

        _committed = true;
        for (int i = 0; i < _maps.Length; i++)
        {
            if (_adviseLater[i] && HugePageAdvice.Advise(_maps[i]))
            {
                HugePageAdvisedBytes += _maps[i].End - _maps[i].Start;
                _advised[i] = true;
            }
        }

        if (_viewSpans is not null)
        {
            MappingRoom room = MappingRoom.Current();
            foreach (((string path, long inode), (long start, long end)) in _viewSpans)
            {
                if (!room.TryTake(1))
                {
                    break;
                }

                MapView(path, inode, start, end);
            }
        }

        if (ViewCount > 0 || ExactMappingCount > 0)
        {
            Log.StagedFileReads(_log, _label, ViewCount, ViewBytes, ExactMappingCount);
        }
    }

    /// <summary>
    /// A trial unit's staging before its populate, for a run whose advice waits for <see cref="Commit"/>: the huge-page
    /// advice on the 2 MiB-aligned span of [<paramref name="start"/>, <paramref name="end"/>) in each mapping this
    /// policy advises (it splits the mapping; <see cref="Commit"/> of the same advice merges it back), then what
    /// <see cref="Read(nint, nint)"/> reads.
    /// </summary>
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

    /// <summary>
    /// Brings in the file bytes behind [start, end) of the mappings before the sweep populates that range: populates
    /// the staging views' ranges, or asks for exactly those bytes (WILLNEED). Allocates nothing; safe on any thread.
    /// </summary>
    [SupportedOSPlatform("linux")]
    internal void Read(nint start, nint end) => Read(start, end, populateAdvised: false);

    /// <summary>
    /// What a background sweep's reader asks for ahead of the workers (<see cref="StrideSweep.ExecuteBehindReadAhead"/>):
    /// <see cref="Read(nint, nint)"/>, and on the mappings given the huge-page advice, the populate itself, which
    /// reads 2 MiB folios and maps each with one entry (no read-ahead call reads large folios: WILLNEED would leave
    /// 4 KiB ones). Allocates nothing; safe on any thread; failures are left to the workers' populate to report.
    /// </summary>
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
                // One window a call: the kernel reads only the first window of a longer WILLNEED (ReadAheadWindow).
                nint last = Pages.Ceiling(to);
                for (nint piece = Pages.Floor(from); (nuint)piece < (nuint)last; piece += _window[i])
                {
                    nint pieceEnd = (nuint)(last - piece) > (nuint)_window[i] ? piece + _window[i] : last;
                    _ = Interop.Libc.Madvise((void*)piece, (nuint)(pieceEnd - piece), Interop.LinuxConstants.MADV_WILLNEED);
                }
            }
        }
    }

    public void Dispose()
    {
        if (_views is null)
        {
            return;
        }

        if (OperatingSystem.IsLinux())
        {
            foreach ((nint address, nuint length) in _views)
            {
                _ = Interop.Libc.Munmap((void*)address, length);
            }
        }

        _views.Clear();
    }

    /// <summary>
    /// Whether the mapped path is a regular file (a stat, nothing opened): a mapped device (a private view of
    /// /dev/zero) is no file to read, and a deleted file's path names nothing.
    /// </summary>
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

    /// <summary>
    /// Whether the regions cover a mapping whole (all but 2% of its pages: a model's header, padding between
    /// tensors). Only then is the whole mapping read with 2 MiB folios: a selection under a larger mapping is read
    /// in exact windows instead, so each run of selected bytes pulls in no neighbours (a 2 MiB folio and the read-ahead
    /// after it at every edge took a 420 MiB expert selection of a 600 MiB GGUF to 504 MiB resident).
    /// </summary>
    private static bool IsCoveredWhole(long covered, long mapped) => covered >= mapped - (mapped / 50);

    /// <summary>
    /// Bytes of the pages the regions touch inside each mapping, at most the mapping's size: a populate reads whole
    /// pages, so 10,000 tensors of 512 bytes spread over a mapping cover all of it.
    /// </summary>
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

    /// <summary>
    /// Maps [start, end) of the file read-only and shared, cut at the file's end, advised MADV_HUGEPAGE, and points
    /// every wanted mapping of that file at it; nothing when the file is gone or the kernel refuses.
    /// </summary>
    private void MapView(string path, long inode, long start, long end)
    {
        if (!OperatingSystem.IsLinux())
        {
            return;
        }

        using SafeFileHandle? file = FileCacheProbe.OpenIfSameFile(path, inode);
        if (file is null)
        {
            return;
        }

        long viewEnd;
        try
        {
            viewEnd = Math.Min(end, Pages.Ceiling(RandomAccess.GetLength(file)));
        }
        catch (IOException)
        {
            return;
        }

        if (viewEnd <= start)
        {
            return;
        }

        void* mapped = Interop.Libc.Mmap(null, (nuint)(viewEnd - start), Interop.LinuxConstants.PROT_READ, Interop.LinuxConstants.MAP_SHARED, file, start);
        if (mapped == (void*)-1)
        {
            return;
        }

        nint view = (nint)mapped;
        _ = Interop.Libc.Madvise(mapped, (nuint)(viewEnd - start), Interop.LinuxConstants.MADV_HUGEPAGE);
        (_views ??= []).Add((view, (nuint)(viewEnd - start)));
        ViewBytes += viewEnd - start;
        for (int i = 0; i < _maps.Length; i++)
        {
            ProcMapEntry m = _maps[i];
            if (m.Writable && m.Inode == inode && m.Offset >= start && m.Offset < viewEnd && !_exact[i]
                && string.Equals(m.Path, path, StringComparison.Ordinal))
            {
                _viewDelta[i] = view + (nint)(m.Offset - start) - m.Start;
                _stagedEnd[i] = m.Start + (nint)Math.Min(m.End - m.Start, viewEnd - m.Offset);
            }
        }
    }
}
