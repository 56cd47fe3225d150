namespace Sharpi.Prefault;

/// <summary>2 MiB folios, one page-table entry each.</summary>
internal sealed class HugePagePopulate(FileStaging staging) : PopulateMechanism(staging)
{
    internal override string Name => "huge-page populate";
}
