namespace Sharpi.Prefault;

/// <summary>
/// MADV_POPULATE_READ through the kernel's own read-ahead. Where the VM reports free pages it cuts a small set into four
/// chunks a thread, so short streams keep their folios off blocks the host took back.
/// </summary>
internal sealed class ReadAheadPopulate(FileStaging staging, bool freePagesReported) : PopulateMechanism(staging)
{
    internal override string Name => "read-ahead populate";

    internal override long ChunkSizeFor(long chunkSize, long bytes, int threads) =>
        freePagesReported ? Staging.ChunkSizeFor(chunkSize, bytes, threads) : chunkSize;
}
