using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault;

/// <summary>
/// How one run brings its pages in, decided in one step (<see cref="Choose"/>) and only read after it: by the sweep
/// (whether the OS read-ahead hint goes first or alone, whether the touch-safety check applies) and by each chunk
/// (populate, the sampled touch after it, the staging read before it).
/// </summary>
/// <param name="Method">The method the result reports.</param>
/// <param name="HintsFirst">
/// The OS read-ahead hint over the regions before the sweep: all of a <see cref="PrefaultMethod.Hint"/> run; before a
/// touch on macOS and Windows, which honour a whole-range hint. On Linux it is capped at the read-ahead window and
/// leaves small folios behind, so a Linux touch goes straight to the sweep.
/// </param>
/// <param name="TouchesAfterPopulate">
/// Each populated chunk is sampled and its slow 2 MiB spans read whole (<see cref="TouchAfterPopulate"/>): only where
/// something had to be read (nothing was, when everything was resident already, so there is no first access to pay
/// for) and only where the touch goes through the kernel (<see cref="SafeTouch.IsKernelChecked"/>: after a populate
/// it must never be a plain load, which a concurrent truncation could turn into a fatal SIGBUS).
/// </param>
/// <param name="Staging">How the file bytes under each mapping come in before a chunk's populate (<see cref="FileStaging"/>); null for nothing.</param>
internal sealed record SweepMechanism(PrefaultMethod Method, bool HintsFirst, bool TouchesAfterPopulate, FileStaging? Staging) : IDisposable
{
    /// <summary>Each chunk is populated with MADV_POPULATE_READ (else touched).</summary>
    internal bool Populates => Method == PrefaultMethod.Populate;

    /// <summary>Chunks are swept at all (not for a hint alone).</summary>
    internal bool SweepsChunks => Method != PrefaultMethod.Hint;

    /// <summary>A touch cannot fail softly: only pages that are mapped, readable and inside the file are swept (<see cref="TouchSafety"/>).</summary>
    internal bool ChecksBeforeTouch => Method == PrefaultMethod.Touch;

    /// <summary>
    /// The mechanism for <paramref name="work"/>: the hint alone when asked; populate (Linux 5.14+, probed once) for
    /// <see cref="PrefaultStrategy.Auto"/>; else the touch sweep, hinted first where the hint is useful. Then how the
    /// file bytes under each mapping come in (see <see cref="FileStaging.Prepare"/>: the huge-page advice on read-only
    /// mappings the regions cover densely, a staging view for dense writable ones, exact reads for sparse selections).
    /// </summary>
    internal static SweepMechanism Choose(PrefaultPlan work, PrefaultOptions options, ILogger log)
    {
        PrefaultMethod method = ChooseMethod(options.Strategy, log);
        bool somethingToRead = work.BytesNeeded > 0;
        return new SweepMechanism(
            method,
            HintsFirst: method == PrefaultMethod.Hint || (method == PrefaultMethod.Touch && !OperatingSystem.IsLinux()),
            TouchesAfterPopulate: method == PrefaultMethod.Populate && somethingToRead && SafeTouch.IsKernelChecked,
            FileStaging.Prepare(work.Ranges, work.Maps, method, options.IsHugePageAdviceEnabled, somethingToRead, log, options.Label));
    }

    /// <summary>Unmaps the staging views: as soon as the sweep is done, not held through the measure and the result.</summary>
    public void Dispose() => Staging?.Dispose();

    private static PrefaultMethod ChooseMethod(PrefaultStrategy strategy, ILogger log)
    {
        if (strategy == PrefaultStrategy.HintOnly)
        {
            return PrefaultMethod.Hint;
        }

        if (strategy == PrefaultStrategy.Auto)
        {
            if (PopulateSupport.IsSupported(out PlatformError probeError))
            {
                return PrefaultMethod.Populate;
            }

            if (OperatingSystem.IsLinux())
            {
                Log.PopulateUnsupported(log, probeError);
            }
        }

        return PrefaultMethod.Touch;
    }
}
