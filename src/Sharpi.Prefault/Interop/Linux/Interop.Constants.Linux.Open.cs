internal static partial class Interop
{
    /// <summary>Linux values for FileOpener's non-blocking open (O_RDONLY, O_CLOEXEC, O_NONBLOCK sit with DirectIO's).</summary>
    internal static partial class LinuxConstants
    {
        /// <summary>fcntl: read and set the file status flags.</summary>
        internal const int F_GETFL = 3;
        internal const int F_SETFL = 4;

        /// <summary>FileOptions.RandomAccess's and SequentialScan's advice.</summary>
        internal const int POSIX_FADV_RANDOM = 1;
        internal const int POSIX_FADV_SEQUENTIAL = 2;

        internal const int EISDIR = 21;
    }
}
