using System.Runtime.Versioning;
using Microsoft.Extensions.Logging;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

/// <summary>
/// How the file bytes under each mapping come into the page cache, decided once per run (Linux) and applied by the
/// sweep before it populates each chunk:
/// <list type="bullet">
/// <item>a read-only mapping the regions cover whole (all but 2% of its pages) gets the huge-page advice
/// (<see cref="HugePageAdvice"/>): each fault reads a 2 MiB folio whatever <c>read_ahead_kb</c> says;</item>
/// <item>a writable mapping covered whole (an engine's own copy-on-write view, as ONNX Runtime makes one per
/// initializer) is read through a read-only, huge-page-advised view of the library's own, populated first, so the
/// engine's mapping then costs minor faults only: it is never advised, written, re-protected or split;</item>
/// <item>a mapping covered sparsely (a tensor selection, a run cut by the RAM budget) is read exactly:
/// <c>POSIX_FADV_WILLNEED</c> of just the chunk's file bytes before its populate, so the populate finds its pages and
/// reads nothing around them. It goes through the engine's own mapping (<c>MADV_WILLNEED</c> of a file mapping is
/// the kernel's <c>POSIX_FADV_WILLNEED</c> of the mapped bytes), so no file is opened or held open.</item>
/// <item>a mapping covered whole that gets neither (the advice withheld on a VM that reports free pages, turned off
/// by the option, or THP off) is read in the device's read-ahead windows the same way: with THP off always, else where
/// a window reads more than the device's
/// own read-ahead (<c>max_sectors_kb</c> above <c>read_ahead_kb</c>: read_ahead_kb 128 under 4 MiB requests);
/// elsewhere the populate reads it through the kernel's own read-ahead, which issues requests as large and fills
/// them with the page cache's own, larger folios, where WILLNEED leaves 4 KiB ones
/// (<see cref="KernelReadAheadBytes"/>).</item>
/// </list>
/// </summary>
/// <remarks>
/// <para>
/// Why views: a populate of ONNX Runtime's writable mappings reads through the device's read-ahead window. On a cold
/// 1 GiB file under 64 MiB <c>MAP_PRIVATE</c> mappings (2 cores, ext4, kernel 6.18, free page reporting suspended,
/// 8 threads, medians of 5): plain populate 0.494 s at read_ahead_kb 128 and 0.413 s at 8192, against the O_DIRECT
/// limit's 0.28 s; a view of the same file ranges populated first, then the engine's mappings, 0.286 s and 0.284 s;
/// parallel 32 MiB <c>pread</c>s first 0.367 s and 0.473 s; <c>POSIX_FADV_WILLNEED</c> first 0.516 s and 0.456 s.
/// </para>
/// <para>
/// Why exact reads for sparse selections: with the huge-page advice each selected range pulls in its 2 MiB folios and
/// one more read ahead, and without it the kernel reads <c>read_ahead_kb</c> around each fault. Measured on a cold
/// 256 MiB file, 1 MiB selected in every 16: 3 MiB read beyond each selected MiB with the advice, 7 MiB without it
/// at read_ahead_kb 8192; 64 KiB in every 4 MiB: the whole file read either way. WILLNEED reads only the range asked
/// for and marks nothing for read-ahead, so a sparse selection costs its own pages and at most one page at each edge.
/// A dense one keeps the fast path: there the spill is the unselected bytes that share a folio with selected ones, and
/// past a region's end the kernel's read-ahead window (measured after three quarters of a 64 MiB file: 2 MiB more
/// at read_ahead_kb 128, 8 MiB at 8192).
/// </para>
/// <para>
/// Why windows only where they read more than the device's read-ahead: measured on the development VM (2 GiB, 2 cores,
/// kernel 6.18, vda with max_sectors_kb 4096), as it ships (free page reporting on, every row settled, 4 repetitions,
/// one run): at read_ahead_kb 8192 the populate after 8 MiB windows loaded in 3.51 s, a plain populate in 2.36 s,
/// demand faults in 3.31 s; at 128, 1.48 s, 1.79 s and 2.02 s. With reporting suspended, at 8192, the populate after
/// windows without the advice (the bench's <c>prefault-nohuge</c>) loaded in 1.22-1.33 s where demand faults took
/// 1.04-1.05 s (the two suspended passes of 2026-11-27 before this rule); at 128, 1.23-1.25 s against 1.70-1.76 s.
/// After it, at 8192: 1.13 s against 1.06 s. <c>Start</c> keeps the windows (its layout beside an init was measured with
/// them), and so does a machine whose THP is off. Left open: a mapping the engine marked <c>MADV_RANDOM</c> (llama.cpp
/// does with NUMA on) gets no read-ahead on its faults, so there the populate reads a page a fault where windows
/// would not (WILLNEED ignores the flag). Telling such a mapping apart takes /proc/self/smaps (VmFlags <c>rr</c>),
/// which cost 19-29 ms a run in a process of 800 mappings: more than the rule saves on most files, so the rule keeps
/// to where it was measured, and a machine with THP off (as NUMA servers often are) keeps the windows.
/// </para>
/// <para>
/// Nothing here reads a byte by a load: views and files are only populated or advised, so a file that shrinks while
/// the sweep runs makes those calls fail softly, and the engine's own populate then reports the pages past the end.
/// A file that cannot be opened again by its path as the same regular file (deleted, renamed over, a device, no
/// permission), or a view the kernel refuses, leaves its mapping to the plain populate. Failures here are ignored.
/// </para>
/// </remarks>
internal sealed unsafe class FileStaging : IDisposable
{
    private readonly ProcMapEntry[] _maps;
    private readonly nint[] _viewDelta;          // per mapping: view address minus engine address; 0 without a view
    private readonly nint[] _stagedEnd;          // per mapping: the engine address where the file's bytes end
    private readonly bool[] _exact;              // per mapping: read its chunks exactly
    private readonly bool[] _advised;            // per mapping: given the huge-page advice
    private readonly nint[] _window;             // per mapping read exactly: the bytes one WILLNEED reads on its device
    private List<(nint Address, nuint Length)>? _views; // made with the first view: most runs map none, and the list is compiled at the first call

    private FileStaging(ProcMapEntry[] maps)
    {
        _maps = maps;
        _viewDelta = new nint[maps.Length];
        _stagedEnd = new nint[maps.Length];
        _exact = new bool[maps.Length];
        _advised = new bool[maps.Length];
        _window = new nint[maps.Length];
    }

    /// <summary>Bytes of the mappings given the huge-page advice.</summary>
    internal long HugePageAdvisedBytes { get; private set; }

    /// <summary>Bytes of the staging views mapped (address space, not memory).</summary>
    internal long ViewBytes { get; private set; }

    internal int ViewCount => _views?.Count ?? 0;

    /// <summary>Mappings whose chunks are read exactly before their populate.</summary>
    internal int ExactMappingCount { get; private set; }

    /// <summary>Bytes of the regions under mappings read exactly, in read-ahead windows.</summary>
    internal long WindowedBytes { get; private set; }

    /// <summary>
    /// Bytes of the regions under mappings covered whole with neither the huge-page advice nor a view that the
    /// populate reads through the kernel's own read-ahead: their device's read-ahead reads at least as much as a
    /// window would (<see cref="ReadAheadWindow.ReadsMoreThanReadAhead"/>).
    /// </summary>
    internal long KernelReadAheadBytes { get; private set; }

    /// <summary>The device's read-ahead under <see cref="KernelReadAheadBytes"/> (the largest, where there are several).</summary>
    internal long KernelReadAheadWindow { get; private set; }

    /// <summary>The largest read-ahead window used (<see cref="ReadAheadWindow"/>); 0 when nothing is read in windows.</summary>
    internal long WindowBytes { get; private set; }

    /// <summary>The huge-page advice was allowed and THP is on, but withheld: this VM reports free pages (<see cref="FreePageReporting"/>).</summary>
    internal bool IsHugePageAdviceWithheld { get; private set; }

    /// <summary>This VM reports free pages to its host (<see cref="FreePageReporting.IsActive"/>), whatever was done about it.</summary>
    internal bool FreePagesReported { get; private set; }

    /// <summary>This VM reports free pages, but the advice was kept: the sweep runs beside the engine's init (<c>Start</c>).</summary>
    internal bool IsHugePageAdviceKeptBesideInit { get; private set; }

    /// <summary>
    /// The chunk size for a sweep of <paramref name="bytes"/> on <paramref name="threads"/> threads: the option's
    /// <paramref name="chunkSize"/>, except on a VM that reports free pages where the populate reads through the
    /// kernel's own read-ahead (<see cref="KernelReadAheadBytes"/>) and the option is the default 32 MiB: there each of
    /// up to eight threads gets up to four chunks, each a whole number of 2 MiB and no smaller than the read-ahead (nor
    /// than a read-ahead window used in the same run). Reads nothing but the decision's figures, and changes nothing.
    /// </summary>
    /// <remarks>
    /// The kernel's read-ahead grows its folios as a stream goes on, and on a VM that reports free pages a 2 MiB folio
    /// lands on a block the host took back. A file of a chunk or two a thread is a few long streams: measured on the
    /// development VM as it ships (read_ahead_kb 8192, every row settled, 8 threads, 4 repetitions, one run per size,
    /// 2026-11-27), a cold 256 MiB file loaded in 0.46 s in 32 MiB chunks (64% of it mapped in 2 MiB folios) against
    /// 0.26 s in 8 MiB and 0.25 s in 16 MiB chunks (0% and 25%), and demand faults 0.34 s; 512 MiB in 0.87 s against
    /// 0.71 s and 0.68 s, demand faults 0.88 s. On 1 GiB, 8 MiB chunks were within noise of 32 MiB ones (1.67 s and
    /// 1.54 s) and on 2 GiB slower (3.66 s and 2.79 s). Only sets under 1 GiB were measured to gain, on 8 threads, so
    /// the rule counts no more than eight threads: from 1 GiB on, every machine keeps 32 MiB. With the rule, in one run
    /// against 34 MiB chunks (outside it): 256 MiB 0.219 s against 0.395 s (demand faults 0.346 s), 512 MiB 0.384 s
    /// against 0.444 s (0.726 s), 2 GiB, where it changes nothing, 2.50 s against 2.74 s (3.07 s). Nothing was measured
    /// with the advice off on a machine that keeps its free pages, so there the option's chunks stay.
    /// </remarks>
    internal long ChunkSizeFor(long chunkSize, long bytes, int threads)
    {
        return FreePagesReported
            ? ChunkSizeFor(chunkSize, KernelReadAheadBytes, Math.Max(KernelReadAheadWindow, WindowBytes), bytes, threads)
            : chunkSize;
    }

    /// <summary>
    /// <paramref name="chunk"/> (from <see cref="ChunkSizeFor(long, long, int)"/>) where it splits a set of
    /// <paramref name="bytes"/> more finely than the option's <paramref name="chunkSize"/> would; else 0.
    /// </summary>
    internal static long FinerChunk(long chunk, long chunkSize, long bytes) => chunk < Math.Min(chunkSize, bytes) ? chunk : 0;

    /// <summary>The threads <see cref="ChunkSizeFor(long, long, int)"/> counts at most: as many as it was measured with.</summary>
    internal const int ChunkRuleThreads = 8;

    /// <summary><see cref="ChunkSizeFor(long, long, int)"/> on its figures (<paramref name="readAhead"/>: the floor, in bytes).</summary>
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
    /// How the file bytes came in and why, for the result: the huge-page advice, the windows, or neither; empty where
    /// nothing was staged (a hint, a touch, everything resident, not Linux). <paramref name="sweptChunk"/>: the chunk
    /// size the sweep used where <see cref="ChunkSizeFor(long, long, int)"/> split the set more finely than the option
    /// would (see <see cref="FinerChunk"/>); 0 elsewhere.
    /// </summary>
    internal string Describe(long sweptChunk = 0)
    {
        string windows = WindowedBytes > 0
            ? $"{Sizes.Format(WindowedBytes)} read ahead in {Sizes.Format(WindowBytes)} windows (MADV_WILLNEED, 4 KiB folios)"
            : string.Empty;
        string advice = HugePageAdvisedBytes > 0 ? $"MADV_HUGEPAGE on {Sizes.Format(HugePageAdvisedBytes)} of file mappings (2 MiB folios)" : string.Empty;
        string views = ViewCount > 0 ? $"{ViewCount} huge-page staging view(s) over {Sizes.Format(ViewBytes)}" : string.Empty;
        string kernel = KernelReadAheadBytes > 0
            ? $"{Sizes.Format(KernelReadAheadBytes)} read through the device's own read-ahead ({Sizes.Format(KernelReadAheadWindow)}, the page cache's own folio sizes): a WILLNEED window would read no more per request than the device's read-ahead already does"
            : string.Empty;
        string chunks = sweptChunk > 0
            ? $"swept in {Sizes.Format(sweptChunk)} chunks, not {Sizes.Format(PrefaultOptions.DefaultChunkSize)}: a small set in large chunks is a few long read-ahead streams, whose folios grow to 2 MiB"
            : string.Empty;
        string text = Join(Join(Join(Join(advice, views), windows), kernel), chunks);
        if (IsHugePageAdviceWithheld && text.Length > 0)
        {
            return $"{text}; no huge-page advice: this VM reports free pages to its host (virtio-balloon free page reporting), so each 2 MiB folio would land on memory the host took back";
        }

        return IsHugePageAdviceKeptBesideInit && HugePageAdvisedBytes + ViewBytes > 0
            ? $"{text}; the advice kept on this VM that reports free pages to its host: beside the engine's init, 2 MiB folios cost its cores next to nothing, 4 KiB ones cost it their kernel work"
            : text;
    }

    /// <summary>
    /// Decides, for each mapping under <paramref name="regions"/>, how its bytes come in (see the type's summary), and
    /// gives the huge-page advice where it applies. The advice needs any sweep but a hint; views and exact reads need
    /// a populate with something still to read. <paramref name="hugePages"/> false (the option) turns off the advice
    /// and the views, not the exact reads; <paramref name="freePagesReported"/> (<see cref="FreePageReporting.IsActive"/>)
    /// withholds them too, and the mappings they would have covered are read in windows where a window reads more than
    /// the device's read-ahead (else through the kernel's read-ahead; with THP off, always in windows), unless
    /// <paramref name="keepsHugePageAdvice"/> (<c>Start</c>: the engine's init wants the cores more than the sweep wants speed;
    /// see <see cref="SweepMechanism.Choose"/>; where it reads in windows, it always does).
    /// </summary>
    internal static FileStaging Prepare(MergedRegion[] regions, ProcMapEntry[] maps, PrefaultMethod method, bool hugePages, bool freePagesReported,
        bool somethingToRead, ILogger log, string label, bool keepsHugePageAdvice = false)
    {
        var staging = new FileStaging(maps);
        if (!OperatingSystem.IsLinux() || maps.Length == 0 || method == PrefaultMethod.Hint)
        {
            return staging;
        }

        staging.FreePagesReported = freePagesReported;
        bool thpEnabled = hugePages && HugePageAdvice.IsThpEnabled(KernelFile.TryReadText(HugePageAdvice.EnabledPath));
        bool withheld = freePagesReported && !keepsHugePageAdvice;
        bool thp = thpEnabled && !withheld;
        staging.IsHugePageAdviceWithheld = thpEnabled && withheld;
        staging.IsHugePageAdviceKeptBesideInit = thpEnabled && freePagesReported && keepsHugePageAdvice;
        bool read = method == PrefaultMethod.Populate && somethingToRead;
        long[] covered = CoveredBytes(regions, maps);
        Dictionary<(string Path, long Inode), (long Start, long End)>? viewSpans = null; // made for the first view, as _views
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
            if (whole && !m.Writable && thp)
            {
                if (HugePageAdvice.Advise(m))
                {
                    staging.HugePageAdvisedBytes += m.End - m.Start;
                    staging._advised[i] = true;
                    staging._stagedEnd[i] = m.End;
                }
            }
            else if (whole && m.Writable && thp && read && !m.IsDeleted)
            {
                long end = m.Offset + (m.End - m.Start);
                viewSpans ??= [];
                viewSpans[(m.Path, m.Inode)] = viewSpans.TryGetValue((m.Path, m.Inode), out (long Start, long End) s)
                    ? (Math.Min(s.Start, m.Offset), Math.Max(s.End, end))
                    : (m.Offset, end);
            }
            else if (read && IsRegularFile(m.Path, regular))
            {
                // Through the engine's own mapping: MADV_WILLNEED of a file mapping is the kernel's WILLNEED of the
                // mapped file's bytes, so no descriptor is opened or held (one per file held for the whole run left an
                // engine with 2,000 files under a lowered ulimit -n none of its own, and Run threw from its metrics).
                // In windows the device reads whole (ReadAheadWindow): one call over more reads only its first window.
                if (windowBytes == 0 || windowDevice != m.Device)
                {
                    windowDevice = m.Device;
                    windowBytes = ReadAheadWindow.For(m.Device, out deviceReadAhead);
                }

                // A mapping covered whole is read in windows only to make the requests larger than the device's read-ahead
                // would; where they would be no larger, the kernel's own read-ahead reads it in larger folios. Only where
                // the advice was withheld (free page reporting) or turned off by the option, where it was measured: not
                // beside the engine's init (Start's layout there was measured with windows), and not where THP is off
                // system-wide (see the remarks: a mapping marked MADV_RANDOM gets no read-ahead on its faults).
                if (whole && (staging.IsHugePageAdviceWithheld || !hugePages) && !keepsHugePageAdvice
                    && !ReadAheadWindow.ReadsMoreThanReadAhead(windowBytes, deviceReadAhead))
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

        // A view is one more mapping: near vm.max_map_count the runtime aborts the process when it cannot map its
        // own memory, so views are made only while there is room; the rest keep the plain populate.
        if (viewSpans is not null)
        {
            MappingRoom room = MappingRoom.Current();
            foreach (((string path, long inode), (long start, long end)) in viewSpans)
            {
                if (!room.TryTake(1))
                {
                    break;
                }

                staging.MapView(path, inode, start, end);
            }
        }

        if (staging.ViewCount > 0 || staging.ExactMappingCount > 0)
        {
            Log.StagedFileReads(log, label, staging.ViewCount, staging.ViewBytes, staging.ExactMappingCount);
        }

        return staging;
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
