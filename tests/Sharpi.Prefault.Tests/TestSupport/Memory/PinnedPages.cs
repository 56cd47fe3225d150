using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// Pages of a file held in the page cache for one test: mapped here read-only with MADV_RANDOM (a page not cached yet
/// is read alone, never with its neighbours) and mlocked, so neither the kernel's reclaim nor an eviction can take
/// them until disposed. For a test whose claim is about pages that stay cached (a look that finds nothing gone, a
/// count that must agree with another): unpinned, a machine short of memory reclaims a few of them at any moment (5
/// pages of a 16 MiB file between two of keep's looks; 2 pages between two counts). Needs what mlock needs (root, or
/// RLIMIT_MEMLOCK of the length): such a test needs <see cref="Requirements.Pinnable16MiB"/> or its like.
/// </summary>
public sealed class PinnedPages : IDisposable
{
    private const int MadvRandom = 1;

    private readonly nint _address;
    private readonly long _mapped;

    private PinnedPages(nint address, long mapped)
    {
        _address = address;
        _mapped = mapped;
    }

    /// <summary>Brings [<paramref name="offset"/>, + <paramref name="length"/>) of the file in, alone, and holds it (page-aligned).</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public static unsafe PinnedPages Of(string path, long offset, long length)
    {
        long page = Environment.SystemPageSize;
        if (offset % page != 0 || length <= 0)
        {
            throw new ArgumentException($"pins whole pages: offset {offset} must be page-aligned, length {length} positive");
        }

        using SafeFileHandle file = File.OpenHandle(path);
        nint address = NativeTestMethods.MapFile(file, offset + length, NativeTestMethods.ProtRead, NativeTestMethods.MapShared);
        try
        {
            if (global::Interop.Libc.Madvise((void*)address, (nuint)(offset + length), MadvRandom) != 0)
            {
                throw new InvalidOperationException($"madvise(MADV_RANDOM) failed: errno {System.Runtime.InteropServices.Marshal.GetLastPInvokeError()}");
            }

            NativeTestMethods.Lock(address + (nint)offset, length);
        }
        catch
        {
            NativeTestMethods.Unmap(address, offset + length);
            throw;
        }

        return new PinnedPages(address, offset + length);
    }

    /// <summary>The whole file held.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public static PinnedPages Of(string path) => Of(path, 0, new FileInfo(path).Length);

    /// <summary>Why this process cannot pin <paramref name="bytes"/> (mlock needs root's CAP_IPC_LOCK or an RLIMIT_MEMLOCK that large), or null.</summary>
    public static string? WhyUnavailable(long bytes)
    {
        if (!OperatingSystem.IsLinux())
        {
            return "Linux only: pins pages with mlock.";
        }

        ulong soft = NativeTestMethods.GetMemlockLimit().Soft;
        return !Environment.IsPrivilegedProcess && soft < (ulong)bytes
            ? $"pins {bytes >> 20} MiB with mlock: needs root (CAP_IPC_LOCK) or RLIMIT_MEMLOCK of at least that (soft limit is {soft} bytes)"
            : null;
    }

    /// <summary>Unmaps, which unlocks: the pages are the page cache's again.</summary>
    public void Dispose()
    {
        if (OperatingSystem.IsLinux())
        {
            NativeTestMethods.Unmap(_address, _mapped);
        }
    }
}
