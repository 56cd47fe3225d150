using System.Buffers;
using System.Numerics;
using System.Runtime.CompilerServices;

namespace Sharpi.Prefault;

/// <summary>Residency by mincore, whose ENOMEM also says a range is not mapped.</summary>
internal static class Mincore
{
    private const int PagesPerCall = 64 * 1024;

    /// <summary>Resident bytes of [start, end), untouched; false with ENOMEM where not all mapped.</summary>
    [SupportedOSPlatform("linux")]
    [SupportedOSPlatform("macos")]
    [SupportedOSPlatform("freebsd")]
    internal static unsafe bool TryCountResident(nint start, nint end, out long residentBytes, out int errno)
    {
        residentBytes = 0;
        errno = 0;
        if (end <= start)
        {
            return true;
        }

        byte[] vector = ArrayPool<byte>.Shared.Rent(PagesPerCall);
        try
        {
            fixed (byte* vec = vector)
            {
                var batches = new PageBatches(start, end, PagesPerCall);
                while (batches.Next(out nint at, out int pages))
                {
                    if (Interop.Libc.Mincore((void*)at, (nuint)pages * (nuint)Pages.Size, vec) != 0)
                    {
                        errno = Marshal.GetLastPInvokeError();
                        return false;
                    }

                    batches.Add(CountResident(vec, pages), (vec[0] & 1) != 0, (vec[pages - 1] & 1) != 0);
                }

                residentBytes = batches.Bytes;
                return true;
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(vector);
        }
    }

    private static unsafe long CountResident(byte* vec, int count)
    {
        const ulong LowBits = 0x0101010101010101UL;
        long resident = 0;
        int i = 0;
        for (; i + 8 <= count; i += 8)
        {
            resident += BitOperations.PopCount(Unsafe.ReadUnaligned<ulong>(vec + i) & LowBits);
        }

        for (; i < count; i++)
        {
            resident += vec[i] & 1;
        }

        return resident;
    }
}
