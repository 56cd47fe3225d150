internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>struct statx (256 bytes on every architecture); only the fields read are named.</summary>
        [StructLayout(LayoutKind.Explicit, Size = 256)]
        internal struct StatxBuffer
        {
            [FieldOffset(0)] internal uint Mask;
            [FieldOffset(4)] internal uint BlockSize;
            [FieldOffset(20)] internal uint Uid;
            [FieldOffset(28)] internal ushort Mode;
            [FieldOffset(32)] internal ulong Inode;
            [FieldOffset(40)] internal ulong Size;
            [FieldOffset(136)] internal uint DevMajor;
            [FieldOffset(140)] internal uint DevMinor;
            [FieldOffset(152)] internal uint DioMemAlign;
            [FieldOffset(156)] internal uint DioOffsetAlign;
        }

        /// <summary>statx; glibc 2.28+.</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "statx", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
        internal static partial int Statx(SafeHandle directoryFileDescriptor, string path, int flags, uint mask, StatxBuffer* buffer);
    }
}
