using System.Globalization;

namespace Sharpi.Prefault;

/// <summary>The calling thread's effective capabilities: a container may drop any, root's too.</summary>
internal static class ThreadCapabilities
{
    /// <summary>The kernel's test before it shows a file's page cache.</summary>
    internal const int Fowner = 3;

    /// <summary>Lock memory past RLIMIT_MEMLOCK.</summary>
    internal const int IpcLock = 14;

    /// <summary>Whether the calling thread holds CAP_* <paramref name="capability"/>.</summary>
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
