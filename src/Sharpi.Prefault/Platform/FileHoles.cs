using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault;

/// <summary>The holes of a sparse file, by lseek's SEEK_DATA and SEEK_HOLE (file systems without extents report none).</summary>
[SupportedOSPlatform("linux")]
internal static class FileHoles
{
    /// <summary>
    /// Whether <paramref name="file"/> has a hole anywhere (one SEEK_HOLE from 0); false where the file system cannot tell.
    /// </summary>
    internal static bool HasAny(SafeFileHandle file, long length)
    {
        long hole = Interop.Libc.Lseek(file, 0, Interop.LinuxConstants.SEEK_HOLE);
        return hole >= 0 && hole < length;
    }

    /// <summary>
    /// Adds the holes of [<paramref name="from"/>, <paramref name="to"/>) to <paramref name="holes"/> as file offsets, in
    /// order; false, adding nothing, where the file system cannot tell, and the caller reads the range as data.
    /// </summary>
    internal static bool TryFind(SafeFileHandle file, long from, long to, List<(long Start, long End)> holes)
    {
        int added = holes.Count;
        for (long at = from; at < to;)
        {
            long data = Interop.Libc.Lseek(file, at, Interop.LinuxConstants.SEEK_DATA);
            if (data < 0)
            {
                if (Marshal.GetLastPInvokeError() != Interop.LinuxConstants.ENXIO)
                {
                    holes.RemoveRange(added, holes.Count - added);
                    return false;
                }

                data = to; // no data after 'at': a hole to the end
            }

            if (data > at)
            {
                holes.Add((at, Math.Min(data, to)));
            }

            if (data >= to)
            {
                break;
            }

            long hole = Interop.Libc.Lseek(file, data, Interop.LinuxConstants.SEEK_HOLE);
            if (hole < 0)
            {
                holes.RemoveRange(added, holes.Count - added);
                return false;
            }

            at = hole;
        }

        return true;
    }
}
