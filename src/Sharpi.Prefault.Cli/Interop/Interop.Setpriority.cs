using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Cli;

internal static partial class Interop
{
    internal static partial class Libc
    {
        internal const int PRIO_PROCESS = 0;

        /// <summary>
        /// int setpriority(int which, id_t who, int prio). On Linux, PRIO_PROCESS with a thread id sets that thread's
        /// nice value; raising one's own needs no privilege.
        /// </summary>
        [SupportedOSPlatform("linux")]
        [LibraryImport("libc", EntryPoint = "setpriority", SetLastError = true)]
        internal static partial int Setpriority(int which, uint who, int priority);
    }
}
