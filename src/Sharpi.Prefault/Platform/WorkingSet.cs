using System.Buffers;

namespace Sharpi.Prefault;

/// <summary>Residency on Windows, by QueryWorkingSetEx.</summary>
[SupportedOSPlatform("windows")]
internal static unsafe class WorkingSet
{
    private const int PagesPerCall = 8 * 1024;

    /// <summary>The bytes of [start, end) in the working set (unmapped: 0); false with the Win32 error when the query fails.</summary>
    internal static bool TryCountResident(nint start, nint end, out long residentBytes, out int error)
    {
        residentBytes = 0;
        error = 0;
        if (end <= start)
        {
            return true;
        }

        Interop.Kernel32.PSAPI_WORKING_SET_EX_INFORMATION[] buffer =
            ArrayPool<Interop.Kernel32.PSAPI_WORKING_SET_EX_INFORMATION>.Shared.Rent(PagesPerCall);
        try
        {
            fixed (Interop.Kernel32.PSAPI_WORKING_SET_EX_INFORMATION* entries = buffer)
            {
                var batches = new PageBatches(start, end, PagesPerCall);
                while (batches.Next(out nint at, out int pages))
                {
                    for (int i = 0; i < pages; i++)
                    {
                        entries[i].VirtualAddress = (void*)(at + (i * Pages.Size));
                        entries[i].VirtualAttributes = 0;
                    }

                    uint size = (uint)(pages * sizeof(Interop.Kernel32.PSAPI_WORKING_SET_EX_INFORMATION));
                    if (Interop.Kernel32.QueryWorkingSetEx(Interop.Kernel32.CurrentProcess, entries, size) == 0)
                    {
                        error = Marshal.GetLastPInvokeError();
                        return false;
                    }

                    long valid = 0;
                    for (int i = 0; i < pages; i++)
                    {
                        valid += entries[i].IsValid ? 1 : 0;
                    }

                    batches.Add(valid, entries[0].IsValid, entries[pages - 1].IsValid);
                }

                residentBytes = batches.Bytes;
                return true;
            }
        }
        finally
        {
            ArrayPool<Interop.Kernel32.PSAPI_WORKING_SET_EX_INFORMATION>.Shared.Return(buffer);
        }
    }

    /// <summary>True when all of [start, end) is committed; else ERROR_INVALID_ADDRESS.</summary>
    internal static bool IsCommitted(nint start, nint end, out int error)
    {
        error = 0;
        Interop.Kernel32.MEMORY_BASIC_INFORMATION info;
        for (nint at = start; (nuint)at < (nuint)end;)
        {
            if (Interop.Kernel32.VirtualQuery((void*)at, &info, (nuint)sizeof(Interop.Kernel32.MEMORY_BASIC_INFORMATION)) == 0)
            {
                error = Marshal.GetLastPInvokeError();
                return false;
            }

            if (info.State != Interop.Kernel32.MEM_COMMIT)
            {
                error = Interop.Kernel32.ERROR_INVALID_ADDRESS;
                return false;
            }

            at = (nint)info.BaseAddress + (nint)info.RegionSize;
        }

        return true;
    }
}
