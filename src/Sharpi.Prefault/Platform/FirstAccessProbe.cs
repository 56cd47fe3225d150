using System.Diagnostics;

namespace Sharpi.Prefault;

/// <summary>What a first access to populated memory costs here, probed once on memory of its own, and whether the kernel's touch pays it.</summary>
internal static unsafe class FirstAccessProbe
{
    private const nuint SmallBytes = 256 * 1024;
    private const nuint Huge = 2 * 1024 * 1024;

    private static readonly Lazy<Costs> s_costs = new(() => OperatingSystem.IsLinux() ? Measure() : default);

    /// <summary>Tests: this async flow's figures.</summary>
    internal static readonly AsyncLocal<Costs?> Override = new();

    /// <summary>Probed at the first call (a millisecond or two); zeros off Linux.</summary>
    internal static Costs Current => Override.Value ?? s_costs.Value;

    /// <summary>A first load's extra ns over a second: a 4 KiB page, a 2 MiB mapping, a page after the kernel's touch; NaN: no block.</summary>
    internal readonly record struct Costs(double Page, double HugeMapping, double PageAfterKernelTouch)
    {
        /// <summary>The kernel's touch leaves the engine less than half the extra.</summary>
        internal bool KernelTouchPays => Page <= 0 || PageAfterKernelTouch < Page / 2;

        /// <summary>ns an engine's first access would add, spread over the threads.</summary>
        internal double EngineNanoseconds(long bytes, long pmdBytes, int threads)
        {
            double page = double.IsNaN(Page) ? 0 : Math.Max(0, Page);
            double small = Math.Max(0, bytes - pmdBytes) / 4096.0 * page;
            double huge = double.IsNaN(HugeMapping) ? pmdBytes / 4096.0 * page : pmdBytes / (double)Huge * Math.Max(0, HugeMapping);
            return (small + huge) / Math.Max(1, threads);
        }
    }

    /// <summary><c>FilePmdMapped</c> of smaps_rollup; -1 where unreadable.</summary>
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

    /// <summary>The first of two loads' extra ns a page of a fresh populated block; NaN where refused.</summary>
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
