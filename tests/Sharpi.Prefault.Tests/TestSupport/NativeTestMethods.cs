using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// Native calls only the tests make: per-thread capabilities and setting RLIMIT_MEMLOCK (Linux). Reading the limit uses
/// the library's own getrlimit and struct rlimit.
/// </summary>
[SupportedOSPlatform("linux")]
public static unsafe partial class NativeTestMethods
{
    private const int CapIpcLock = 14;
    private const uint LinuxCapabilityVersion3 = 0x20080522;

    /// <summary>
    /// Drops CAP_IPC_LOCK from the calling thread's effective set (capabilities are per thread on Linux; the other
    /// threads of the process keep theirs). The thread can no longer lock past RLIMIT_MEMLOCK.
    /// </summary>
    public static void DropIpcLockFromThisThread()
    {
        CapHeader header = new() { Version = LinuxCapabilityVersion3, Pid = 0 };
        CapData* data = stackalloc CapData[2];
        if (Capget(&header, data) != 0)
        {
            throw new InvalidOperationException($"capget failed: errno {Marshal.GetLastPInvokeError()}");
        }

        data[0].Effective &= ~(1u << CapIpcLock);
        if (Capset(&header, data) != 0)
        {
            throw new InvalidOperationException($"capset failed: errno {Marshal.GetLastPInvokeError()}");
        }
    }

    public static (ulong Soft, ulong Hard) GetMemlockLimit()
    {
        global::Interop.Libc.RLimit limit;
        if (global::Interop.Libc.Getrlimit(global::Interop.LinuxConstants.RLIMIT_MEMLOCK, &limit) != 0)
        {
            throw new InvalidOperationException($"getrlimit failed: errno {Marshal.GetLastPInvokeError()}");
        }

        return (limit.Current, limit.Maximum);
    }

    public static void SetMemlockSoftLimit(ulong soft)
    {
        global::Interop.Libc.RLimit limit;
        if (global::Interop.Libc.Getrlimit(global::Interop.LinuxConstants.RLIMIT_MEMLOCK, &limit) != 0)
        {
            throw new InvalidOperationException($"getrlimit failed: errno {Marshal.GetLastPInvokeError()}");
        }

        limit.Current = (nuint)soft;
        if (Setrlimit(global::Interop.LinuxConstants.RLIMIT_MEMLOCK, &limit) != 0)
        {
            throw new InvalidOperationException($"setrlimit failed: errno {Marshal.GetLastPInvokeError()}");
        }
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct CapHeader
    {
        public uint Version;
        public int Pid;
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct CapData
    {
        public uint Effective;
        public uint Permitted;
        public uint Inheritable;
    }

    [LibraryImport(global::Interop.Libraries.Libc, EntryPoint = "capget", SetLastError = true)]
    private static partial int Capget(CapHeader* header, CapData* data);

    [LibraryImport(global::Interop.Libraries.Libc, EntryPoint = "capset", SetLastError = true)]
    private static partial int Capset(CapHeader* header, CapData* data);

    /// <summary>int setrlimit(int resource, const struct rlimit *rlim); test-only, with the library's struct rlimit.</summary>
    [LibraryImport(global::Interop.Libraries.Libc, EntryPoint = "setrlimit", SetLastError = true)]
    private static partial int Setrlimit(int resource, global::Interop.Libc.RLimit* limit);
}
