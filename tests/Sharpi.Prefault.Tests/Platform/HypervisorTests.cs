using System.Runtime.InteropServices;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Platform;

/// <summary>The CPU's hypervisor-present bit, read through CPUID, against what the kernel read from it at boot.</summary>
public sealed class HypervisorTests
{
    [LinuxFact]
    public void IsPresent_OnX86_IsTheKernelsHypervisorFlag_ElseTrue()
    {
        if (RuntimeInformation.ProcessArchitecture is not (Architecture.X64 or Architecture.X86))
        {
            Assert.True(Hypervisor.IsPresent); // no such bit: a host cannot be ruled out
            return;
        }

        // /proc/cpuinfo's "flags" line lists "hypervisor" where the kernel found CPUID.1:ECX[31] set (X86_FEATURE_HYPERVISOR).
        string flags = File.ReadLines("/proc/cpuinfo").First(static l => l.StartsWith("flags", StringComparison.Ordinal));
        bool kernelSays = flags[(flags.IndexOf(':', StringComparison.Ordinal) + 1)..].Split(' ', StringSplitOptions.RemoveEmptyEntries).Contains("hypervisor");

        Assert.Equal(kernelSays, Hypervisor.IsPresent);
    }
}
