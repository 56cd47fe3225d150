namespace Sharpi.Prefault;

/// <summary>How the sweep's threads share the chunks.</summary>
internal enum SweepOrder
{
    /// <summary>One contiguous slice of the chunks per thread; each thread walks its own, then helps the others.</summary>
    Slices,

    /// <summary>All threads take the next chunk in the order given, so regions finish in that order.</summary>
    InOrder,
}
