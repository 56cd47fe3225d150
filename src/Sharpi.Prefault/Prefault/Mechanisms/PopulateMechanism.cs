namespace Sharpi.Prefault;

/// <summary>
/// One way the populate sweep brings a chunk's file bytes in: its staging, chunk size and name. A new mechanism is a
/// subclass and its place in <see cref="MechanismChoice.Order"/>.
/// </summary>
internal abstract class PopulateMechanism : IDisposable
{
    private protected PopulateMechanism(FileStaging staging) => Staging = staging;

    internal FileStaging Staging { get; }

    /// <summary>For the result and the log lines.</summary>
    internal abstract string Name { get; }

    /// <summary>4 KiB folios read in windows: kernel work a page, which <c>Start</c> reads ahead of its sweep.</summary>
    internal bool ReadsInWindows => Staging.WindowedBytes > 0;

    /// <summary>The option's chunk size unless the mechanism knows better.</summary>
    internal virtual long ChunkSizeFor(long chunkSize, long bytes, int threads) => chunkSize;

    /// <summary>Makes it the run's: applies the advice and views its trial deferred.</summary>
    internal void Commit() => Staging.Commit();

    public void Dispose() => Staging.Dispose();

    internal static PopulateMechanism Create(FileStaging staging, bool freePagesReported) => staging.Policy switch
    {
        FolioPolicy.HugePages => new HugePagePopulate(staging),
        FolioPolicy.ReadAhead => new ReadAheadPopulate(staging, freePagesReported),
        _ => new WindowedPopulate(staging),
    };
}
