using Sharpi.Prefault.Tests.Mappings;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// A private, writable mapping of /dev/zero (how some allocators get zeroed memory) has a path and an inode in
/// /proc/self/maps but no file behind it: its written pages are private memory, counted by mincore, and its size is
/// not the device's (0).
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class DeviceMappingTests
{
    private const long Bytes = 4 * TestFile.MiB;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Measure_OfAWrittenPrivateDevZeroMapping_CountsTheWrittenPages()
    {
        using NativeMmap zero = NativeMmap.Map("/dev/zero", 0, Bytes, writable: true);
        Write(zero);

        ResidencyInfo residency = Residency.Measure(new PrefaultRegion(zero.Address, Bytes, "zero"));

        Assert.Equal(Bytes, residency.ResidentBytes);
    }

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData(PrefaultStrategy.Touch)]
    [InlineData(PrefaultStrategy.Auto)]
    public void Run_OverAPrivateDevZeroMapping_SweepsItWithoutCallingItTruncated(PrefaultStrategy strategy)
    {
        using NativeMmap zero = NativeMmap.Map("/dev/zero", 0, Bytes, writable: true);

        PrefaultResult result = MmapPrefault.Run([new PrefaultRegion(zero.Address, Bytes, "zero")],
            new PrefaultOptions { Strategy = strategy, RamGate = RamGate.Always });

        Assert.Empty(result.Failures);
        Assert.Equal(Bytes, result.Bytes);
    }

    private static unsafe void Write(NativeMmap map) => new Span<byte>((void*)map.Address, (int)map.Length).Fill(1);
}
