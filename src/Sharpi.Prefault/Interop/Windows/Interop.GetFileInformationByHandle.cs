internal static partial class Interop
{
    internal static unsafe partial class Kernel32
    {
        /// <summary>BY_HANDLE_FILE_INFORMATION, 52 bytes; volume serial and file index name a file.</summary>
        // FILETIME is 4-byte aligned, hence Pack = 4 for the ulong stand-ins.
        [StructLayout(LayoutKind.Sequential, Pack = 4)]
        internal struct BY_HANDLE_FILE_INFORMATION
        {
            internal uint FileAttributes;
            internal ulong CreationTime;
            internal ulong LastAccessTime;
            internal ulong LastWriteTime;
            internal uint VolumeSerialNumber;
            internal uint FileSizeHigh;
            internal uint FileSizeLow;
            internal uint NumberOfLinks;
            internal uint FileIndexHigh;
            internal uint FileIndexLow;
        }

        [LibraryImport(Libraries.Kernel32, EntryPoint = "GetFileInformationByHandle", SetLastError = true)]
        [return: MarshalAs(UnmanagedType.Bool)]
        internal static partial bool GetFileInformationByHandle(SafeHandle file, BY_HANDLE_FILE_INFORMATION* information);
    }
}
