namespace Sharpi.Prefault;

/// <summary>WILLNEED in read-ahead windows, then the populate: 4 KiB folios in requests as large as the device takes.</summary>
internal sealed class WindowedPopulate(FileStaging staging) : PopulateMechanism(staging)
{
    internal override string Name => "windowed populate";
}
