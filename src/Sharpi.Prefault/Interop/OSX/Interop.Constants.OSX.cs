internal static partial class Interop
{
    /// <summary>macOS (XNU) values used by this library.</summary>
    internal static partial class OSXConstants
    {
        internal const int MADV_WILLNEED = 3;
        internal const int MADV_DONTNEED = 4;

        internal const int EPERM = 1;
        internal const int EINTR = 4;
        internal const int EAGAIN = 35;
        internal const int ENOMEM = 12;
        internal const int EFAULT = 14;
        internal const int EINVAL = 22;
    }
}
