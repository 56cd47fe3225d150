internal static partial class Interop
{
    /// <summary>macOS values for FileOpener's non-blocking open.</summary>
    internal static partial class OSXConstants
    {
        internal const int O_RDONLY = 0;
        internal const int O_NONBLOCK = 0x4;
        internal const int O_CLOEXEC = 0x1000000;

        internal const int F_GETFL = 3;
        internal const int F_SETFL = 4;

        internal const int EACCES = 13;
    }
}
