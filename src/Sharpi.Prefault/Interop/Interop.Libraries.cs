internal static partial class Interop
{
    /// <summary>Native library names, in one place.</summary>
    internal static class Libraries
    {
        /// <summary>glibc/musl on Linux, libSystem on macOS.</summary>
        internal const string Libc = "libc";

        internal const string Kernel32 = "kernel32.dll";
    }

    /// <summary>libc's functions: Unix-like systems only; an import that one OS lacks narrows this with its own attributes.</summary>
    [SupportedOSPlatform("linux")]
    [SupportedOSPlatform("macos")]
    [SupportedOSPlatform("freebsd")]
    internal static partial class Libc
    {
    }

    /// <summary>kernel32's functions: Windows only.</summary>
    [SupportedOSPlatform("windows")]
    internal static partial class Kernel32
    {
    }
}
