using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        /// <summary>struct iovec { void *iov_base; size_t iov_len; }.</summary>
        [StructLayout(LayoutKind.Sequential)]
        [SupportedOSPlatform("linux")]
        internal struct IOVector
        {
            internal void* Base;
            internal nuint Count;
        }

        /// <summary>
        /// ssize_t process_vm_readv(pid_t pid, const struct iovec *local_iov, unsigned long liovcnt, const struct iovec
        /// *remote_iov, unsigned long riovcnt, unsigned long flags); Linux 3.2+.
        /// </summary>
        [LibraryImport(Libraries.Libc, EntryPoint = "process_vm_readv", SetLastError = true)]
        [SupportedOSPlatform("linux")]
        internal static partial nint ProcessVmReadv(int pid, IOVector* localIov, nuint localCount, IOVector* remoteIov, nuint remoteCount, nuint flags);
    }
}
