using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Bench;

internal static partial class Interop
{
    internal static partial class Libc
    {
        internal const int O_RDONLY = 0;
        internal const int O_CLOEXEC = 0x80000;

        /// <summary>O_DIRECT on x64 (040000 octal); arm64 uses 0200000.</summary>
        internal static int O_DIRECT => RuntimeInformation.ProcessArchitecture is Architecture.Arm64 or Architecture.Arm ? 0x10000 : 0x4000;

        [LibraryImport(Libraries.Libc, EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
        internal static partial int Open(string path, int flags);
    }
}
