internal static partial class Interop
{
    internal static partial class LinuxConstants
    {
        /// <summary>getrlimit resource: bytes of memory that may be locked (mlock) without CAP_IPC_LOCK.</summary>
        internal const int RLIMIT_MEMLOCK = 8;

        /// <summary>RLIM_INFINITY: (rlim_t)-1.</summary>
        internal const ulong RLIM_INFINITY = ulong.MaxValue;
    }
}
