namespace Sharpi.Prefault;

/// <summary>
/// MADV_WILLNEED of each chunk's bytes in the device's read-ahead windows, then MADV_POPULATE_READ: 4 KiB folios, read
/// in requests as large as the device takes, which beats the kernel's own read-ahead where read_ahead_kb is small.
/// </summary>
internal sealed class WindowedPopulate(FileStaging staging) : PopulateMechanism(staging)
{
    internal override string Name => "windowed populate";
}
