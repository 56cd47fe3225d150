namespace Sharpi.Prefault;

/// <summary>MADV_WILLNEED in the device's read-ahead windows, then MADV_POPULATE_READ: 4 KiB folios in requests as large as the device takes.</summary>
internal sealed class WindowedPopulate(FileStaging staging) : PopulateMechanism(staging)
{
    internal override string Name => "windowed populate";
}
