using System.Runtime.InteropServices;

internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>
        /// Which names the C library's 64-bit-offset calls go by (<see cref="Pread"/>, <see cref="Lseek"/>,
        /// <see cref="Sendfile"/>): the plain ones in a 64-bit process, where off_t is 64-bit on glibc and musl alike
        /// (musl 1.2.4 dropped the <c>*64</c> aliases) and in any musl process (its off_t is 64-bit everywhere); the
        /// <c>*64</c> ones in a 32-bit glibc process, where the plain names take a 32-bit off_t.
        /// </summary>
        private static class LargeFileNames
        {
            internal static readonly bool Use64 = IntPtr.Size == 4
                && !RuntimeInformation.RuntimeIdentifier.Contains("musl", StringComparison.OrdinalIgnoreCase);
        }
    }
}
