namespace Sharpi.Prefault;

// The fallback: a read that Direct I/O refuses reopens the file buffered, for good.
public sealed unsafe partial class DirectFileReader
{
    private static bool IsRefusal(int errno) =>
        OperatingSystem.IsWindows() ? errno == Interop.Kernel32.ERROR_INVALID_PARAMETER : errno == Interop.LinuxConstants.EINVAL;

    /// <summary>Reopens buffered for good after a refused read (CoW or FUSE file systems); logs it once.</summary>
    private void FallBack(int errno, long fileOffset)
    {
        string error = ThrowHelper.DescribeOSError(errno);
        string reason = _directBytesRead == 0
            ? $"the filesystem refused the first Direct I/O read (at offset {fileOffset}: {error})"
            : $"the filesystem refused a Direct I/O read at offset {fileOffset} ({error})";
        OpenedFile buffered = DirectFileOpener.OpenBuffered(Path, reason);
        _handle.Dispose();
        _handle = buffered.Handle;
        _fallbackReason = reason;
        _mode = DirectReadMode.Buffered;
        Log.DirectIOFallback(_logger, Path, reason);
    }
}
