internal static partial class Interop
{
    /// <summary>Native library names, in one place.</summary>
    internal static class Libraries
    {
        /// <summary>The C library: resolves to glibc/musl on Linux and libSystem on macOS.</summary>
        internal const string Libc = "libc";

        internal const string Kernel32 = "kernel32.dll";
    }
}
