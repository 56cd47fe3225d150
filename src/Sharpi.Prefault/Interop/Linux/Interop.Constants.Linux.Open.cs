internal static partial class Interop
{
    /// <summary>Linux values for opening a file without blocking (FileOpener); O_RDONLY, O_CLOEXEC and O_NONBLOCK sit with DirectIO's.</summary>
    internal static partial class LinuxConstants
    {
        /// <summary>fcntl commands: read and set the file status flags (O_NONBLOCK among them).</summary>
        internal const int F_GETFL = 3;
        internal const int F_SETFL = 4;

        /// <summary>posix_fadvise: no read-ahead (FileOptions.RandomAccess), or twice the read-ahead (SequentialScan).</summary>
        internal const int POSIX_FADV_RANDOM = 1;
        internal const int POSIX_FADV_SEQUENTIAL = 2;

        internal const int EISDIR = 21;
    }
}
