using System.Runtime.InteropServices;
using System.Runtime.Versioning;

internal static partial class Interop
{
    internal static partial class Libc
    {
        internal const int PRIO_PROCESS = 0;

        [LibraryImport(Libraries.Libc, EntryPoint = "setpriority", SetLastError = true)]
        [SupportedOSPlatform("linux")]
        internal static partial int Setpriority(int which, uint who, int priority);
    }
}
