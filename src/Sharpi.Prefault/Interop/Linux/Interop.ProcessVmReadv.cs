internal static partial class Interop
{
    internal static unsafe partial class Libc
    {
        [StructLayout(LayoutKind.Sequential)]
        internal struct IOVector
        {
            internal void* Base;
            internal nuint Count;
        }

        /// <summary>process_vm_readv; Linux 3.2+.</summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "process_vm_readv", SetLastError = true)]
        internal static partial nint ProcessVmReadv(int pid, IOVector* localIov, nuint localCount, IOVector* remoteIov, nuint remoteCount, nuint flags);
    }
}
