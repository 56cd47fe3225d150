namespace Sharpi.Prefault;

/// <summary>MADV_HUGEPAGE, then the populate: 2 MiB folios, one page-table entry each.</summary>
internal sealed class HugePagePopulate(FileStaging staging) : PopulateMechanism(staging)
{
    internal override string Name => "huge-page populate";
}
