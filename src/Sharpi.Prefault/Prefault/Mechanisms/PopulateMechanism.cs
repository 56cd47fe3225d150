namespace Sharpi.Prefault;

/// <summary>A way to bring file bytes in before a populate; a new one is a subclass and its place in the order.</summary>
internal abstract class PopulateMechanism : IDisposable
{
    private protected PopulateMechanism(FileStaging staging) => Staging = staging;

    internal FileStaging Staging { get; }

    internal abstract string Name { get; }

    /// <summary>4 KiB folios in windows: kernel work a page, which <c>Start</c> reads ahead of its sweep.</summary>
    internal bool ReadsInWindows => Staging.WindowedBytes > 0;

    internal virtual long ChunkSizeFor(long chunkSize, long bytes, int threads) => chunkSize;

    /// <summary>Applies what its trial deferred.</summary>
    internal void Commit() => Staging.Commit();

    public void Dispose() => Staging.Dispose();

    internal static PopulateMechanism Create(FileStaging staging, bool freePagesReported) => staging.Policy switch
    {
        FolioPolicy.HugePages => new HugePagePopulate(staging),
        FolioPolicy.ReadAhead => new ReadAheadPopulate(staging, freePagesReported),
        _ => new WindowedPopulate(staging),
    };
}
