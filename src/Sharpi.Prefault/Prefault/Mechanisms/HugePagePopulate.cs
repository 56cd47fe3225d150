namespace Sharpi.Prefault;

/// <summary>
/// MADV_HUGEPAGE on the read-only mappings the regions cover whole, a huge-page staging view under writable ones, then
/// MADV_POPULATE_READ: 2 MiB folios mapped with one entry each, whatever the device's read-ahead, where THP allows.
/// </summary>
internal sealed class HugePagePopulate(FileStaging staging) : PopulateMechanism(staging)
{
    internal override string Name => "huge-page populate";
}
