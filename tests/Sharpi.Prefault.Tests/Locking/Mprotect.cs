using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Tests.Locking;

/// <summary>mprotect, which only the lock tests call: a PROT_NONE page inside a file view.</summary>
internal static unsafe partial class Mprotect
{
    internal const int ProtNone = 0;
    internal const int ProtRead = 1;

    internal static void Set(nint address, long length, int protection)
    {
        if (Call((void*)address, (nuint)length, protection) != 0)
        {
            throw new InvalidOperationException($"mprotect failed: errno {Marshal.GetLastPInvokeError()}");
        }
    }

    [LibraryImport("libc", EntryPoint = "mprotect", SetLastError = true)]
    private static partial int Call(void* address, nuint length, int protection);
}
