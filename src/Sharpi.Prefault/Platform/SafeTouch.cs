using System.Runtime.InteropServices;

namespace Sharpi.Prefault;

/// <summary>
/// Reads one byte of every page of a range so that each page faults in, in a way that cannot kill the process: a
/// plain load of a page past a file's end raises SIGBUS, which .NET cannot catch, and a file may shrink at any moment
/// while a sweep runs. So the read goes through the kernel, which reports such a page as an error instead:
/// <c>process_vm_readv</c> on this process (Linux 3.2+, up to 1,024 pages a call) or <c>mach_vm_read_overwrite</c>
/// (macOS). On Windows a file cannot be truncated while a view of it is mapped (ERROR_USER_MAPPED_FILE), so a range
/// <c>VirtualQuery</c> found committed and readable is read directly. Where the kernel refuses the call (a seccomp
/// filter), nothing is ever loaded: Linux reads the files through descriptors instead, and memory of no file through
/// /proc/self/mem (<see cref="FileReadTouch"/>), and elsewhere the touch is refused for the hint (<see cref="SweepMechanism.Choose"/>).
/// </summary>
internal static unsafe class SafeTouch
{
    /// <summary>IOV_MAX: the most iovecs one process_vm_readv takes.</summary>
    private const int PagesPerCall = 1024;

    private const int MacCopyBytes = 64 * 1024;

    /// <summary>
    /// True when touches go through the kernel and so survive a concurrent truncation; false where they would be plain
    /// loads (Windows, or a kernel that refused the call), which need <see cref="TouchSafety"/>'s check first and,
    /// outside Windows, are never made over a file mapping (see <see cref="FileReadTouch"/>).
    /// </summary>
    internal static bool IsKernelChecked => Probed.IsKernelChecked;

    /// <summary>
    /// Touches every page of [<paramref name="start"/>, <paramref name="end"/>) in address order and returns where it
    /// stopped: <paramref name="end"/>, or the start of the first page that could not be read (with the call that
    /// could not read it and its errno).
    /// </summary>
    internal static nint Touch(nint start, nint end, ref byte sink, out PlatformError error) => Touch(start, end, Pages.Size, ref sink, out error);

    /// <summary>
    /// As <see cref="Touch(nint, nint, ref byte, out PlatformError)"/>, but one page every <paramref name="stride"/> bytes (a
    /// multiple of the page size: the page at <paramref name="start"/>, then every stride from its page) where the read
    /// goes through the Linux kernel, elsewhere every page. A stop is the start of the first <em>sampled</em> page that
    /// could not be read; a page between samples may have failed before it.
    /// </summary>
    internal static nint Touch(nint start, nint end, nint stride, ref byte sink, out PlatformError error)
    {
        error = PlatformError.None;
        if (IsKernelChecked)
        {
            if (OperatingSystem.IsLinux())
            {
                return TouchThroughKernel(start, end, stride, out error);
            }

            if (OperatingSystem.IsMacOS())
            {
                return TouchThroughMach(start, end, out error);
            }
        }

        if (!OperatingSystem.IsWindows())
        {
            // The kernel refused to read for us, and a plain load of a page past a file's end would be fatal: nothing
            // is read here (the sweep reads files through FileReadTouch, or refuses the touch for the hint).
            error = Probed.Refusal;
            return start;
        }

        sink ^= TouchDirect((byte*)start, (byte*)end);
        return end;
    }

    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static nint TouchThroughKernel(nint start, nint end, nint stride, out PlatformError error)
    {
        error = PlatformError.None;
        int pid = Environment.ProcessId;
        byte* sink = stackalloc byte[PagesPerCall];
        Interop.Libc.IOVector* remote = stackalloc Interop.Libc.IOVector[PagesPerCall];
        nint next = start;
        while ((nuint)next < (nuint)end)
        {
            // One byte of each page (or every stride's): the first at start, the others at page boundaries.
            int count = 0;
            nint batchStart = next;
            for (; count < PagesPerCall && (nuint)next < (nuint)end; count++)
            {
                remote[count].Base = (void*)next;
                remote[count].Count = 1;
                next = Pages.Floor(next) + stride;
            }

            Interop.Libc.IOVector local = new() { Base = sink, Count = (nuint)count };
            nint read = Interop.Libc.ProcessVmReadv(pid, &local, 1, remote, (nuint)count, 0);
            if (read == count)
            {
                continue;
            }

            // A short read stops at the first page the kernel could not fault in; -1 means the first one.
            error = PlatformError.FromErrno("process_vm_readv", read < 0 ? Marshal.GetLastPInvokeError() : Interop.LinuxConstants.EFAULT);
            nint stopped = (nint)remote[read < 0 ? 0 : read].Base;
            return (nuint)stopped > (nuint)batchStart ? Pages.Floor(stopped) : batchStart;
        }

        return end;
    }

    [System.Runtime.Versioning.SupportedOSPlatform("macos")]
    private static nint TouchThroughMach(nint start, nint end, out PlatformError error)
    {
        error = PlatformError.None;
        uint task = Interop.Libc.MachTaskSelf();
        byte* buffer = stackalloc byte[MacCopyBytes];
        for (nint at = start; (nuint)at < (nuint)end;)
        {
            nint stop = (nuint)(end - at) > MacCopyBytes ? at + MacCopyBytes : end;
            ulong copied;
            int kr = Interop.Libc.MachVmReadOverwrite(task, (ulong)at, (ulong)(stop - at), (ulong)buffer, &copied);
            if (kr != 0)
            {
                // A kern_return_t is no errno: the range could not be read, which is macOS's EFAULT.
                error = PlatformError.FromErrno("mach_vm_read_overwrite", Interop.OSXConstants.EFAULT);
                return at;
            }

            at = stop;
        }

        return end;
    }

    /// <summary>
    /// Reads one byte per page from <paramref name="start"/> and the last byte: every page of the range faults in once.
    /// Plain loads: only for Windows views, which cannot shrink under them (see the type's summary).
    /// </summary>
    internal static byte TouchDirect(byte* start, byte* end)
    {
        byte acc = 0;
        for (byte* p = start; p < end; p += Pages.Size)
        {
            acc ^= *p;
        }

        return (byte)(acc ^ *(end - 1));
    }

    /// <summary>
    /// The probe, run once by the runtime's class constructor (thread-safe, as Lazy was, without the Lazy over a value
    /// tuple that a ReadyToRun image cannot hold and an engine's first call that touches had to compile: 7 methods).
    /// </summary>
    private static class Probed
    {
        internal static readonly bool IsKernelChecked;
        internal static readonly PlatformError Refusal;

#pragma warning disable CA1810 // both fields come from one probe
        static Probed() => IsKernelChecked = Probe(out Refusal);
#pragma warning restore CA1810
    }

    private static bool Probe(out PlatformError error)
    {
        byte probe = 1;
        error = PlatformError.None;
        return OperatingSystem.IsLinux() ? TouchThroughKernel((nint)(&probe), (nint)(&probe) + 1, Pages.Size, out error) == (nint)(&probe) + 1
            : OperatingSystem.IsMacOS() && TouchThroughMach((nint)(&probe), (nint)(&probe) + 1, out error) == (nint)(&probe) + 1;
    }
}
