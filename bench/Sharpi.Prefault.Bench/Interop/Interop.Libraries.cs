namespace Sharpi.Prefault.Bench;

internal static partial class Interop
{
    /// <summary>Native library names, in one place.</summary>
    internal static class Libraries
    {
        /// <summary>The C library (glibc or musl on Linux).</summary>
        internal const string Libc = "libc";
    }
}
