namespace Sharpi.Prefault;

/// <summary>How a <see cref="DirectFileReader"/> reads its file.</summary>
public enum DirectReadMode
{
    /// <summary>Past the page cache: O_DIRECT on Linux, FILE_FLAG_NO_BUFFERING on Windows.</summary>
    Direct = 0,

    /// <summary>Through the page cache, because Direct I/O was switched off, is unsupported here, or was refused (see <see cref="DirectFileReader.FallbackReason"/>).</summary>
    Buffered = 1,
}
