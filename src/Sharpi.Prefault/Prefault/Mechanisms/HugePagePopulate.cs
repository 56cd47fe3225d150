namespace Sharpi.Prefault;

/// <summary>MADV_HUGEPAGE (a huge-page view under writable mappings), then MADV_POPULATE_READ: 2 MiB folios, one entry each.</summary>
internal sealed class HugePagePopulate(FileStaging staging) : PopulateMechanism(staging)
{
    internal override string Name => "huge-page populate";
}
