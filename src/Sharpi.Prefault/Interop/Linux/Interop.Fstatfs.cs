internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>The head of struct statfs on 64-bit Linux; block counts in f_bsize units.</summary>
        [StructLayout(LayoutKind.Explicit, Size = 256)]
        internal struct StatfsBuffer
        {
            [FieldOffset(0)] internal long Type;
            [FieldOffset(8)] internal long BlockSize;
            [FieldOffset(16)] internal ulong Blocks;
            [FieldOffset(24)] internal ulong BlocksFree;
            [FieldOffset(32)] internal ulong BlocksAvailable;
        }

        /// <summary>fstatfs (fstatfs64 on 64-bit targets).</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "fstatfs", SetLastError = true)]
        internal static partial int Fstatfs(SafeHandle fileDescriptor, StatfsBuffer* buffer);
    }
}
