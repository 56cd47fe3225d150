using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>
/// The calling thread's effective capabilities (<c>CapEff</c> in /proc/thread-self/status: capabilities are a thread's,
/// and a container or a user namespace may have dropped any of them, root's included).
/// </summary>
internal static class ThreadCapabilities
{
    /// <summary>CAP_FOWNER: act as the owner of any file (the kernel's test before it shows a file's page cache).</summary>
    internal const int Fowner = 3;

    /// <summary>CAP_IPC_LOCK: lock memory past RLIMIT_MEMLOCK.</summary>
    internal const int IpcLock = 14;

    /// <summary>Whether the calling thread holds <paramref name="capability"/> (a CAP_* number) in its effective set.</summary>
    internal static bool Has(int capability)
    {
        foreach (string line in (KernelFile.TryReadText("/proc/thread-self/status") ?? string.Empty).Split('\n'))
        {
            if (line.StartsWith("CapEff:", StringComparison.Ordinal))
            {
                return ulong.TryParse(line.AsSpan("CapEff:".Length).Trim(), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out ulong caps)
                    && (caps & (1UL << capability)) != 0;
            }
        }

        return false;
    }
}
