using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault;

/// <summary>
/// What this machine charges an engine's first access to memory a populate already mapped, measured once per process
/// on anonymous memory of its own (a load there cannot fault fatally), and whether a touch through the kernel pays it.
/// </summary>
internal static unsafe class FirstAccessProbe
{
    private const nuint SmallBytes = 256 * 1024; // enough to time, cheap where each page costs a host's trap
    private const nuint Huge = 2 * 1024 * 1024;

    private static readonly Lazy<Costs> s_costs = new(() => OperatingSystem.IsLinux() ? Measure() : default);

    /// <summary>Tests: figures for this async flow in place of the machine's.</summary>
    internal static readonly AsyncLocal<Costs?> Override = new();

    /// <summary>Measured at the first call (a millisecond or two); zeros off Linux.</summary>
    internal static Costs Current => Override.Value ?? s_costs.Value;

    /// <summary>
    /// A first load's extra ns a 4 KiB page, a 2 MiB mapping (what 512 small pages cost where no huge page was had) and a
    /// page after a touch through the kernel; NaN where a block could not be had.
    /// </summary>
    internal readonly record struct Costs(double Page, double HugeMapping, double PageAfterKernelTouch)
    {
        /// <summary>The kernel's touch leaves the engine less than half the extra.</summary>
        internal bool KernelTouchPays => Page <= 0 || PageAfterKernelTouch < Page / 2;

        /// <summary>What an engine's first access would add to the bytes, in ns, spread over the threads.</summary>
        internal double EngineNanoseconds(long bytes, long pmdBytes, int threads)
        {
            double page = double.IsNaN(Page) ? 0 : Math.Max(0, Page);
            double small = Math.Max(0, bytes - pmdBytes) / 4096.0 * page;
            double huge = double.IsNaN(HugeMapping) ? pmdBytes / 4096.0 * page : pmdBytes / (double)Huge * Math.Max(0, HugeMapping);
            return (small + huge) / Math.Max(1, threads);
        }
    }

    /// <summary><c>FilePmdMapped</c> of /proc/self/smaps_rollup in bytes; -1 where it cannot be read.</summary>
    internal static long FilePmdMappedBytes()
    {
        string? text = KernelFile.TryReadText("/proc/self/smaps_rollup");
        int at = text?.IndexOf("FilePmdMapped:", StringComparison.Ordinal) ?? -1;
        if (text is null || at < 0)
        {
            return -1;
        }

        ReadOnlySpan<char> rest = text.AsSpan(at + "FilePmdMapped:".Length).TrimStart();
        int digits = 0;
        while (digits < rest.Length && char.IsAsciiDigit(rest[digits]))
        {
            digits++;
        }

        return long.TryParse(rest[..digits], System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out long kb) ? kb * 1024 : -1;
    }

    [SupportedOSPlatform("linux")]
    private static Costs Measure()
    {
        using MappingTouch? touch = MappingTouch.TryCreate();
        double page = ExtraPerPage(SmallBytes, hugePages: false, touch: null);
        double afterTouch = touch is null ? page : ExtraPerPage(SmallBytes, hugePages: false, touch);
        double huge = ExtraPerPage(Huge, hugePages: true, touch: null) * (Huge / 4096);
        return new Costs(page, huge, afterTouch);
    }

    /// <summary>A fresh block populated (and touched through the kernel), then loaded twice: the first pass's extra ns a page; NaN where refused.</summary>
    [SupportedOSPlatform("linux")]
    private static double ExtraPerPage(nuint bytes, bool hugePages, MappingTouch? touch)
    {
        void* block = NativeMemory.AlignedAlloc(bytes, Huge);
        try
        {
            int advice = hugePages ? Interop.LinuxConstants.MADV_HUGEPAGE : Interop.LinuxConstants.MADV_NOHUGEPAGE;
            if (Interop.Libc.Madvise(block, bytes, advice) != 0
                || Interop.Libc.Madvise(block, bytes, Interop.LinuxConstants.MADV_POPULATE_WRITE) != 0)
            {
                return double.NaN;
            }

            byte sink = 0;
            if (touch is not null)
            {
                _ = touch.Touch((nint)block, (nint)block + (nint)bytes, 4096, ref sink, out _);
            }

            long first = Pass((byte*)block, bytes, ref sink);
            long second = Pass((byte*)block, bytes, ref sink);
            GC.KeepAlive(sink);
            return Math.Max(0, first - second) * (1e9 / Stopwatch.Frequency) / (bytes / 4096);
        }
        finally
        {
            NativeMemory.AlignedFree(block);
        }
    }

    private static long Pass(byte* block, nuint bytes, ref byte sink)
    {
        long started = Stopwatch.GetTimestamp();
        for (nuint at = 0; at < bytes; at += 4096)
        {
            sink ^= block[at];
        }

        return Stopwatch.GetTimestamp() - started;
    }
}
