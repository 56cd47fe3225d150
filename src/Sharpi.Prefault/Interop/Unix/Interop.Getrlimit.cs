internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>struct rlimit: two 64-bit unsigned values on Linux and macOS.</summary>
        [StructLayout(LayoutKind.Sequential)]
        internal struct RLimit
        {
            internal nuint Current;
            internal nuint Maximum;
        }

        /// <summary>getrlimit; resource numbers differ per OS (the constants files).</summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "getrlimit", SetLastError = true)]
        internal static partial int Getrlimit(int resource, RLimit* limit);
    }
}
