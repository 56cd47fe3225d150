namespace Sharpi.Prefault;

/// <summary>Faults pages in through the kernel, never by a load, which past a file's end is an uncatchable SIGBUS.</summary>
internal static unsafe class SafeTouch
{
    /// <summary>IOV_MAX.</summary>
    internal const int PagesPerCall = 1024;

    private const int MacCopyBytes = 64 * 1024;

    /// <summary>False on Windows or where refused: a touch then needs <see cref="TouchSafety"/>'s check.</summary>
    internal static bool IsKernelChecked => Probed.Answer.IsAvailable;

    /// <summary>Returns <paramref name="end"/> or the first page not read, with its error.</summary>
    internal static nint Touch(nint start, nint end, ref byte sink, out PlatformError error) => Touch(start, end, Pages.Size, ref sink, out error);

    /// <summary>One page a stride on Linux (elsewhere every page): a page between samples may have failed first.</summary>
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
            // A load past a file's end would be fatal.
            error = Probed.Answer.Error;
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
            nint batchStart = next;
            int count = PageVectors(remote, ref next, end, stride);

            Interop.Libc.IOVector local = new() { Base = sink, Count = (nuint)count };
            nint read = Interop.Libc.ProcessVmReadv(pid, &local, 1, remote, (nuint)count, 0);
            if (read == count)
            {
                continue;
            }

            // A short read stopped at the first page not faulted in; -1, at the first.
            error = PlatformError.FromErrno("process_vm_readv", read < 0 ? Marshal.GetLastPInvokeError() : Interop.LinuxConstants.EFAULT);
            nint stopped = (nint)remote[read < 0 ? 0 : read].Base;
            return (nuint)stopped > (nuint)batchStart ? Pages.Floor(stopped) : batchStart;
        }

        return end;
    }

    /// <summary>Vectors of one byte a stride from <paramref name="next"/>, moved past them; how many.</summary>
    [SupportedOSPlatform("linux")]
    internal static int PageVectors(Interop.Libc.IOVector* vectors, ref nint next, nint end, nint stride)
    {
        int count = 0;
        for (; count < PagesPerCall && (nuint)next < (nuint)end; count++)
        {
            vectors[count].Base = (void*)next;
            vectors[count].Count = 1;
            next = Pages.Floor(next) + stride;
        }

        return count;
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
                // A kern_return_t is no errno: macOS's EFAULT.
                error = PlatformError.FromErrno("mach_vm_read_overwrite", Interop.OSXConstants.EFAULT);
                return at;
            }

            at = stop;
        }

        return end;
    }

    /// <summary>Plain loads: only for Windows views, which cannot shrink.</summary>
    internal static byte TouchDirect(byte* start, byte* end)
    {
        byte acc = 0;
        for (byte* p = start; p < end; p += Pages.Size)
        {
            acc ^= *p;
        }

        return (byte)(acc ^ *(end - 1));
    }

    private static class Probed
    {
        internal static readonly ProbeAnswer Answer = new(Probe(out PlatformError error), error);
    }

    private static bool Probe(out PlatformError error)
    {
        byte probe = 1;
        error = PlatformError.None;
        return OperatingSystem.IsLinux() ? TouchThroughKernel((nint)(&probe), (nint)(&probe) + 1, Pages.Size, out error) == (nint)(&probe) + 1
            : OperatingSystem.IsMacOS() && TouchThroughMach((nint)(&probe), (nint)(&probe) + 1, out error) == (nint)(&probe) + 1;
    }
}
