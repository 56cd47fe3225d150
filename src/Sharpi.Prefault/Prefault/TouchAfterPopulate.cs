using System.Diagnostics;

namespace Sharpi.Prefault;

/// <summary>
/// Whether the sweep reads every page of a 2 MiB span once more after <c>MADV_POPULATE_READ</c> mapped it. On a virtual
/// machine the page cache a populate fills can land on guest memory that the hypervisor has not mapped (memory never
/// touched since boot, pages a balloon's free page reporting handed back to the host, a deflated balloon): the first
/// CPU access to each such page then costs a fault on the host that the guest never counts. Populate alone leaves
/// that cost to the engine's first request; a read through the kernel (see <see cref="SafeTouch"/>) pays it in the
/// sweep, in parallel. Elsewhere (bare metal, memory the host already maps) there is nothing to pay, and reading
/// every page cost 14% more load time (0.628 s against 0.552 s for a cold 2 GiB). So each 2 MiB span
/// (<see cref="SpanBytes"/>) is sampled first: one page in <see cref="SamplePages"/> is read and timed,
/// and only a span whose sample ran slower than <see cref="SlowPageNanoseconds"/> a page is read whole. A host that
/// takes memory back takes it in such blocks (free page reporting reports 2 MiB ones), and a preempted sample costs
/// one span's extra read, not a chunk's. Where the CPU reports no hypervisor (<see cref="Hypervisor"/>) and no balloon
/// reports free pages, no host is known, and nothing is sampled (<see cref="SweepMechanism.SamplesAfterPopulate"/>).
/// </summary>
/// <remarks>
/// Measured on a cold 2 GiB file (2 cores, ext4, kernel 6.18, read_ahead_kb 128, request moe, medians of 5), bench
/// <c>coldstart --strategies limit-direct-2,prefault,none --cache cold --repeat 5 --read-ahead-kb 128</c>, before the
/// sampling: with free page reporting on (<c>--free-page-reporting keep</c>), populate and a full touch loaded in
/// 1.45 s and the first request then took 0.049 s (1.17x warm); with the touch patched out, populate loaded in 1.00 s
/// and left 0.735 s (19x warm) to the first request. With reporting suspended (the bench's default, as on bare metal):
/// populate and a full touch 0.628 s and 0.045 s (1.02x warm); populate alone 0.552 s and 0.047 s (1.06x warm).
/// Sampling whole 32 MiB chunks: reporting on, the load took 1.36 s (0.65-3.00 s, as much as the host had taken back;
/// 0 to 64 of the 64 chunks read whole) and the first request 0.051 s (1.11x warm); reporting suspended, 0-3 chunks
/// were read whole and the load came to 0.97x the limit of its run (0.588 s against 0.571 s). Sampling 2 MiB spans
/// (this code), reporting on: load 0.924 s (0.608-1.97 s), first request 0.040 s, 1.00x the same request run again;
/// reporting suspended, the main job's prefault rows in docs/benchmarks.md (0.96x and 0.98x the limit).
/// Tried in a8c150b and reverted in 73b0679: reading every populated chunk whole wherever the processors waited on the
/// storage (six tenths of their time idle in /proc/stat; 80-94% idle from the virtio disk, 7-50% from a RAM disk).
/// In three A/B runs on the disk (2 GiB, reporting suspended, read_ahead_kb 128 and 8192, six pairs) the first
/// request came to 1.01x-1.08x warm against 1.04x-1.16x, but the load took up to 6% longer and the request was done
/// later in five pairs of six; through xfs on a loop device over the disk the load took 15% longer.
/// </remarks>
internal static class TouchAfterPopulate
{
    /// <summary>The span judged at a time: 2 MiB, a PMD-sized folio or host huge page.</summary>
    internal const nint SpanBytes = 2 * 1024 * 1024;

    /// <summary>One page in this many of a span is read and timed before deciding to read them all.</summary>
    internal const int SamplePages = 16;

    /// <summary>
    /// A sample slower than this a page paid faults: on the development VM a sampled page that the host maps took
    /// 450-880 ns to read (one page in 16, through the kernel, averaged over 32 MiB chunks of a cold 2 GiB), and the
    /// chunks whose pages the host had to fault in averaged 7,900-21,000 ns a page.
    /// </summary>
    internal const double SlowPageNanoseconds = 2_000;

    /// <summary>True when <paramref name="elapsedTicks"/> (Stopwatch ticks) for <paramref name="pages"/> sampled pages is slower than <paramref name="slowPageNanoseconds"/> a page.</summary>
    internal static bool IsSlow(long elapsedTicks, long pages, double slowPageNanoseconds) =>
        pages > 0 && elapsedTicks * (1e9 / Stopwatch.Frequency) > pages * slowPageNanoseconds;
}

/// <summary>What the sweep does after each chunk's populate.</summary>
internal enum TouchAfter
{
    /// <summary>Nothing: the populate mapped every page, and a first access costs no more than a later one.</summary>
    None,

    /// <summary>Each 2 MiB span sampled and read whole where the sample was slow (<see cref="TouchAfterPopulate"/>).</summary>
    Sampled,

    /// <summary>Every page accessed once through the engine's mapping: the trial found the first access costly.</summary>
    All,
}
