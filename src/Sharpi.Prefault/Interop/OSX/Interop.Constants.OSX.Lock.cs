internal static partial class Interop
{
    internal static partial class OSXConstants
    {
        /// <summary>getrlimit resource: bytes of memory that may be locked (mlock).</summary>
        internal const int RLIMIT_MEMLOCK = 6;

        /// <summary>RLIM_INFINITY: 2^63 - 1 on XNU.</summary>
        internal const ulong RLIM_INFINITY = long.MaxValue;
    }
}
