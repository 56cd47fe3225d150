internal static partial class Interop
{
    /// <summary>Native library names, in one place.</summary>
    internal static class Libraries
    {
        /// <summary>glibc/musl on Linux, libSystem on macOS.</summary>
        internal const string Libc = "libc";

        internal const string Kernel32 = "kernel32.dll";
    }

    // An import one of these lacks narrows them.
    [SupportedOSPlatform("linux")]
    [SupportedOSPlatform("macos")]
    [SupportedOSPlatform("freebsd")]
    internal static partial class Libc
    {
    }

    [SupportedOSPlatform("windows")]
    internal static partial class Kernel32
    {
    }
}
