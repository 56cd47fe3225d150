namespace Sharpi.Prefault;

/// <summary>The kernel's own read-ahead; where free pages are reported, short streams keep folios off reported blocks.</summary>
internal sealed class ReadAheadPopulate(FileStaging staging, bool freePagesReported) : PopulateMechanism(staging)
{
    internal override string Name => "read-ahead populate";

    internal override long ChunkSizeFor(long chunkSize, long bytes, int threads) =>
        freePagesReported ? Staging.ChunkSizeFor(chunkSize, bytes, threads) : chunkSize;
}
