namespace Sharpi.Prefault;

/// <summary>
/// Reads the small text files the kernel generates (/proc, /sys): a file that is missing, unreadable or refused reads
/// as null, never as an exception, since every figure read from one is optional (an unknown figure never blocks).
/// </summary>
internal static class KernelFile
{
    /// <summary>The whole text of <paramref name="path"/>, or null where it does not exist or cannot be read.</summary>
    internal static string? TryReadText(string path)
    {
        try
        {
            // The check keeps the common "not here" (a cgroup v1 file on v2, a group not visible in a container)
            // from throwing, and so from costing a first-chance exception per file of a cgroup walk. Regular files
            // only (every /proc and /sys file is one): an open of a FIFO mounted over one blocks until a writer comes,
            // and a sweep's thread, and so the handle's Dispose, would wait for it for good.
            return FileStatus.TryOf(path) is { Kind: FileKind.Regular } ? File.ReadAllText(path) : null;
        }
        catch (IOException)
        {
            return null;
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }
}
