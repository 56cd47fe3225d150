internal static partial class Interop
{
    internal static partial class LinuxConstants
    {
        /// <summary>Bytes that may be locked without CAP_IPC_LOCK.</summary>
        internal const int RLIMIT_MEMLOCK = 8;

        internal const ulong RLIM_INFINITY = ulong.MaxValue;
    }
}
