internal static partial class Interop
{
    internal static partial class OSXConstants
    {
        internal const int RLIMIT_MEMLOCK = 6;

        /// <summary>2^63 - 1 on XNU.</summary>
        internal const ulong RLIM_INFINITY = long.MaxValue;
    }
}
