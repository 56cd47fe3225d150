using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// Native calls only the tests make: per-thread capabilities, setting RLIMIT_MEMLOCK, mprotect, mlockall, chown and
/// anonymous or fixed mappings (Linux). mmap, munmap, mlock, munlock, madvise and getrlimit are the library's own
/// (<c>Interop.Libc</c>); only the functions the library does not call are declared here.
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
    public static void DropIpcLockFromThisThread() => DropFromThisThread(CapIpcLock);

    /// <summary>CAP_DAC_OVERRIDE: write any file whatever its mode.</summary>
    public const int CapDacOverride = 1;

    /// <summary>CAP_FOWNER: act as the owner of any file.</summary>
    public const int CapFowner = 3;

    /// <summary>
    /// Drops <paramref name="capabilities"/> from the calling thread's effective set (capabilities are per thread on
    /// Linux; the other threads of the process keep theirs). Run it on a thread of the test's own, which ends with it.
    /// </summary>
    public static void DropFromThisThread(params int[] capabilities)
    {
        CapHeader header = new() { Version = LinuxCapabilityVersion3, Pid = 0 };
        CapData* data = stackalloc CapData[2];
        if (Capget(&header, data) != 0)
        {
            throw new InvalidOperationException($"capget failed: errno {Marshal.GetLastPInvokeError()}");
        }

        foreach (int capability in capabilities)
        {
            data[0].Effective &= ~(1u << capability);
        }

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

    /// <summary>
    /// A fresh private anonymous mapping of <paramref name="length"/> bytes: no page of it is present until touched,
    /// and each fault maps one page (no fault-around), unlike heap memory that may have been used before.
    /// </summary>
    public static nint MapAnonymous(long length)
    {
        void* address = global::Interop.Libc.Mmap(null, (nuint)length, ProtRead | ProtWrite, MapPrivate | MapAnonymousFlag, NoFile, 0);
        if (address == (void*)-1)
        {
            throw new InvalidOperationException($"mmap failed: errno {Marshal.GetLastPInvokeError()}");
        }

        // No transparent huge page for it, whatever the THP mode: the test counts 4 KiB pages.
        _ = global::Interop.Libc.Madvise(address, (nuint)length, global::Interop.LinuxConstants.MADV_NOHUGEPAGE);
        return (nint)address;
    }

    /// <summary>The descriptor of a mapping without a file (-1), for the library's mmap, which takes a SafeHandle.</summary>
    private static readonly SafeFileHandle NoFile = new(-1, ownsHandle: false);

    public static void Unmap(nint address, long length) => _ = global::Interop.Libc.Munmap((void*)address, (nuint)length);

    public const int ProtRead = 1;
    public const int ProtWrite = 2;
    public const int MapShared = 0x01;
    public const int MapPrivate = 0x02;
    public const int MapAnonymousFlag = 0x20;
    public const int MapHugetlb = 0x40000;

    /// <summary>
    /// mmap of <paramref name="length"/> bytes of <paramref name="file"/> from offset 0 with the protection and flags
    /// given, which MemoryMappedFile cannot give: a mapping longer than its file, a private read-only view, a device.
    /// </summary>
    public static nint MapFile(SafeFileHandle file, long length, int protection, int flags)
    {
        void* address = global::Interop.Libc.Mmap(null, (nuint)length, protection, flags, file, 0);
        if (address == (void*)-1)
        {
            throw new InvalidOperationException($"mmap failed: errno {Marshal.GetLastPInvokeError()}");
        }

        return (nint)address;
    }

    /// <summary>
    /// Replaces [<paramref name="address"/>, + <paramref name="length"/>) with fresh private anonymous read-write memory
    /// in one mmap(MAP_FIXED) call, as an engine that reuses a view's addresses does: no moment leaves the range unmapped.
    /// </summary>
    public static void ReplaceWithAnonymous(nint address, long length)
    {
        void* mapped = global::Interop.Libc.Mmap((void*)address, (nuint)length, ProtRead | ProtWrite, MapPrivate | MapAnonymousFlag | MapFixed, NoFile, 0);
        if (mapped != (void*)address)
        {
            throw new InvalidOperationException($"mmap(MAP_FIXED) failed: errno {Marshal.GetLastPInvokeError()}");
        }
    }

    public const int MapFixed = 0x10;

    /// <summary>
    /// mmap of <paramref name="length"/> bytes of <paramref name="file"/> from offset 0 at <paramref name="address"/>
    /// (MAP_FIXED: it replaces what was mapped there), for a file mapping right beside another mapping.
    /// </summary>
    public static nint MapFileAt(nint address, SafeFileHandle file, long length, int protection, int flags)
    {
        void* mapped = global::Interop.Libc.Mmap((void*)address, (nuint)length, protection, flags | MapFixed, file, 0);
        if (mapped == (void*)-1)
        {
            throw new InvalidOperationException($"mmap failed: errno {Marshal.GetLastPInvokeError()}");
        }

        return (nint)mapped;
    }

    /// <summary>mmap without a file (<see cref="MapAnonymousFlag"/> is among <paramref name="flags"/>); errno on failure, as an exception.</summary>
    public static nint Map(long length, int protection, int flags)
    {
        void* address = global::Interop.Libc.Mmap(null, (nuint)length, protection, flags, NoFile, 0);
        if (address == (void*)-1)
        {
            throw new InvalidOperationException($"mmap failed: errno {Marshal.GetLastPInvokeError()}");
        }

        return (nint)address;
    }

    public static void Protect(nint address, long length, int protection)
    {
        if (Mprotect((void*)address, (nuint)length, protection) != 0)
        {
            throw new InvalidOperationException($"mprotect failed: errno {Marshal.GetLastPInvokeError()}");
        }
    }

    public const int MclCurrent = 1;
    public const int MclFuture = 2;

    /// <summary>Locks the process's pages as an engine does (llama.cpp's <c>--mlock</c>): mlock, outside the library.</summary>
    public static void Lock(nint address, long length)
    {
        if (global::Interop.Libc.Mlock((void*)address, (nuint)length) != 0)
        {
            throw new InvalidOperationException($"mlock failed: errno {Marshal.GetLastPInvokeError()}");
        }
    }

    public static void Unlock(nint address, long length) => _ = global::Interop.Libc.Munlock((void*)address, (nuint)length);

    /// <summary>mlockall(<paramref name="flags"/>): every mapping of the process locked (and, with <see cref="MclFuture"/>, every later one). Child processes only.</summary>
    public static void LockAll(int flags)
    {
        if (Mlockall(flags) != 0)
        {
            throw new InvalidOperationException($"mlockall failed: errno {Marshal.GetLastPInvokeError()}");
        }
    }

    public static void UnlockAll() => _ = Munlockall();

    /// <summary>chown(2): gives <paramref name="path"/> to another user (root only).</summary>
    public static void ChangeOwner(string path, uint owner, uint group)
    {
        if (Chown(path, owner, group) != 0)
        {
            throw new InvalidOperationException($"chown failed: errno {Marshal.GetLastPInvokeError()}");
        }
    }

    [LibraryImport(global::Interop.Libraries.Libc, EntryPoint = "chown", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
    private static partial int Chown(string path, uint owner, uint group);

    [LibraryImport(global::Interop.Libraries.Libc, EntryPoint = "mlockall", SetLastError = true)]
    private static partial int Mlockall(int flags);

    [LibraryImport(global::Interop.Libraries.Libc, EntryPoint = "munlockall", SetLastError = true)]
    private static partial int Munlockall();

    [LibraryImport(global::Interop.Libraries.Libc, EntryPoint = "mprotect", SetLastError = true)]
    private static partial int Mprotect(void* address, nuint length, int protection);

    /// <summary>int setrlimit(int resource, const struct rlimit *rlim); test-only, with the library's struct rlimit.</summary>
    [LibraryImport(global::Interop.Libraries.Libc, EntryPoint = "setrlimit", SetLastError = true)]
    private static partial int Setrlimit(int resource, global::Interop.Libc.RLimit* limit);
}
