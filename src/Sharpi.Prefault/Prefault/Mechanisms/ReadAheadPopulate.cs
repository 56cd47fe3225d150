namespace Sharpi.Prefault;

/// <summary>
/// MADV_POPULATE_READ with nothing staged before it: the kernel's own read-ahead reads the file in the page cache's
/// own folio sizes, growing as each stream goes on.
/// </summary>
/// <param name="staging">Prepared under <see cref="FolioPolicy.ReadAhead"/>.</param>
/// <param name="freePagesReported">
/// The VM reports free pages to its host: only there does the mechanism split a small set into more chunks (four a
/// thread), so its streams stay short enough that their folios land on memory the host still maps.
/// </param>
internal sealed class ReadAheadPopulate(FileStaging staging, bool freePagesReported) : PopulateMechanism(staging)
{
    internal override string Name => "read-ahead populate";

    internal override long ChunkSizeFor(long chunkSize, long bytes, int threads) =>
        freePagesReported ? Staging.ChunkSizeFor(chunkSize, bytes, threads) : chunkSize;
}
