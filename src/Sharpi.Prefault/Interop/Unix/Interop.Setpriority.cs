internal static partial class Interop
{
    internal static partial class Libc
    {
        internal const int PRIO_PROCESS = 0;

        [SupportedOSPlatform("linux")]
        [LibraryImport(Libraries.Libc, EntryPoint = "setpriority", SetLastError = true)]
        internal static partial int Setpriority(int which, uint who, int priority);
    }
}
