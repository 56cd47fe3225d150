namespace Sharpi.Prefault;

/// <summary>
/// One way the populate sweep brings a chunk's file bytes in: its staging before each populate (a
/// <see cref="FileStaging"/> under its <see cref="FolioPolicy"/>), its chunk size and its name. A run's candidates are
/// these objects (<see cref="MechanismChoice"/>); its trial picks one (<see cref="MechanismTrial"/>) and the sweep runs
/// the rest with it (<see cref="ChunkSweep"/>). Adding a mechanism is adding a subclass and its place in the order.
/// </summary>
internal abstract class PopulateMechanism : IDisposable
{
    private protected PopulateMechanism(FileStaging staging) => Staging = staging;

    /// <summary>How the file bytes under the mappings come in before each populate.</summary>
    internal FileStaging Staging { get; }

    /// <summary>The mechanism in a few words, for the result, the trial's Debug line and the Information line.</summary>
    internal abstract string Name { get; }

    /// <summary>Some of the bytes come in through read-ahead windows (4 KiB folios): kernel work per page, which <c>Start</c> reads ahead of its sweep.</summary>
    internal bool ReadsInWindows => Staging.WindowedBytes > 0;

    /// <summary>The sweep's chunk size for <paramref name="bytes"/> on <paramref name="threads"/> threads; the option's <paramref name="chunkSize"/> unless the mechanism knows better.</summary>
    internal virtual long ChunkSizeFor(long chunkSize, long bytes, int threads) => chunkSize;

    /// <summary>Makes the mechanism the run's: the advice and views its trial left for later (<see cref="FileStaging.Commit"/>).</summary>
    internal void Commit() => Staging.Commit();

    /// <summary>Unmaps its staging views.</summary>
    public void Dispose() => Staging.Dispose();

    /// <summary>The mechanism for <paramref name="staging"/>'s policy (<paramref name="freePagesReported"/>: the VM reports free pages).</summary>
    internal static PopulateMechanism Create(FileStaging staging, bool freePagesReported) => staging.Policy switch
    {
        FolioPolicy.HugePages => new HugePagePopulate(staging),
        FolioPolicy.ReadAhead => new ReadAheadPopulate(staging, freePagesReported),
        _ => new WindowedPopulate(staging),
    };
}
