namespace Sharpi.Prefault;

/// <summary>A sparse file's holes, by lseek's SEEK_DATA and SEEK_HOLE.</summary>
[SupportedOSPlatform("linux")]
internal static class FileHoles
{
    /// <summary>Whether the file has a hole; false where the file system cannot tell.</summary>
    internal static bool HasAny(SafeFileHandle file, long length)
    {
        long hole = Interop.Libc.Lseek(file, 0, Interop.LinuxConstants.SEEK_HOLE);
        return hole >= 0 && hole < length;
    }

    /// <summary>
    /// Adds the holes of [<paramref name="from"/>, <paramref name="to"/>) as file offsets, in order; false, adding nothing,
    /// where the file system cannot tell (the caller reads it as data).
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

                data = to; // a hole to the end
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
