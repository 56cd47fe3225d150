using System.Globalization;
using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The limit readers' reused, pre-faulted, aligned buffers. With <c>hugePages</c> each is 2 MiB-aligned and
/// advised MADV_HUGEPAGE before it is touched: an O_DIRECT read into 4 KiB pages needs one segment per page, and a
/// virtio disk's max_segments (254 here) caps each request near 1 MiB, where physically contiguous 2 MiB pages let
/// it reach max_sectors_kb (measured on this VM, 2 x 32 MiB in flight: 530-700 KiB requests and ~1.0 GiB/s against 4 MiB and ~3.3 GiB/s; a C loop does the same).
/// </summary>
internal sealed unsafe class ReadBuffers : IDisposable
{
    private const nuint HugePageSize = 2 * 1024 * 1024;

    private readonly nint[] _buffers;

    internal ReadBuffers(int count, int size, bool hugePages)
    {
        _buffers = new nint[count];
        long hugeBefore = ProcessMemory.AnonHugeBytes;
        for (int i = 0; i < count; i++)
        {
            void* buffer = NativeMemory.AlignedAlloc((nuint)size, hugePages ? HugePageSize : 4096);
            _buffers[i] = (nint)buffer;
            if (hugePages && OperatingSystem.IsLinux())
            {
                _ = Interop.Libc.Madvise(buffer, (nuint)size, Interop.LinuxConstants.MADV_HUGEPAGE); // a hint: where THP is off it is refused and the reads run on 4 KiB pages
            }

            NativeMemory.Fill(buffer, (nuint)size, 1); // pre-fault: the limit must not pay for page faults
        }

        HugeBytes = Math.Max(0, ProcessMemory.AnonHugeBytes - hugeBefore);
        Size = size;
    }

    internal int Size { get; }

    /// <summary>How much of the buffers the kernel backed with 2 MiB pages (AnonHugePages grew by this much).</summary>
    internal long HugeBytes { get; }

    internal nint this[int index] => _buffers[index];

    /// <summary>For the method column: the page size the buffers really got.</summary>
    internal string Pages => HugeBytes >= (long)Size * _buffers.Length
        ? "2 MiB pages"
        : HugeBytes > 0
            ? string.Create(CultureInfo.InvariantCulture, $"{Sizes.Format(HugeBytes)} of {Sizes.Format((long)Size * _buffers.Length)} in 2 MiB pages")
            : "4 KiB pages";

    public void Dispose()
    {
        foreach (nint buffer in _buffers)
        {
            NativeMemory.AlignedFree((void*)buffer);
        }
    }
}
