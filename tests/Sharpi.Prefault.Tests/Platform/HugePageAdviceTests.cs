using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Tests.Platform;

/// <summary>MADV_HUGEPAGE before the sweep: whole read-only file mappings only, no mapping split, and an opt-out.</summary>
public sealed class HugePageAdviceTests
{
    private const long MiB = TestFile.MiB;

    private static bool ThpOn => HugePageAdvice.IsThpEnabled(File.Exists(HugePageAdvice.EnabledPath) ? File.ReadAllText(HugePageAdvice.EnabledPath) : null);

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_OverTenThousandTensorRegions_AdvisesTheWholeMapping_AndSplitsIt_Never()
    {
        using TestFile file = TestFile.Create(16 * MiB);
        using MappedFile map = file.Map();
        PrefaultRegion whole = map.Region();
        PrefaultRegion[] tensors = new PrefaultRegion[10_000];
        long stride = file.Length / tensors.Length;
        for (int i = 0; i < tensors.Length; i++)
        {
            tensors[i] = new PrefaultRegion(whole.Address + (nint)(i * stride), 512, $"blk.{i}.weight");
        }

        int before = MappingsUnder(whole);

        PrefaultResult result = MmapPrefault.Run(tensors, new PrefaultOptions { RamGate = RamGate.Always });

        Assert.Equal(before, MappingsUnder(whole));
        Assert.Equal(1, before);
        if (ThpOn && Requirements.HugePageRun is null) // a run whose first guess is the huge-page advice (MechanismChoice.Order)
        {
            Assert.True(result.HugePageAdvisedBytes >= file.Length, $"advised {result.HugePageAdvisedBytes} bytes");
            Assert.Contains("hg", VmFlags(whole.Address));
        }
        else
        {
            Assert.Equal(0, result.HugePageAdvisedBytes);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public unsafe void Run_OverAnonymousMemory_AdvisesNothing()
    {
        nuint bytes = 4 * 1024 * 1024;
        void* memory = NativeMemory.AlignedAlloc(bytes, 4096);
        try
        {
            PrefaultResult result = MmapPrefault.Run([new PrefaultRegion((nint)memory, (long)bytes, "heap")], new PrefaultOptions { RamGate = RamGate.Always });

            Assert.True(result.HasRun, result.Reason);
            Assert.Equal(0, result.HugePageAdvisedBytes);
            Assert.DoesNotContain("hg", VmFlags((nint)memory));
        }
        finally
        {
            NativeMemory.AlignedFree(memory);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithTheAdviceTurnedOff_LeavesTheMappingAsItWas()
    {
        using TestFile file = TestFile.Create(8 * MiB);
        using MappedFile map = file.Map();

        PrefaultResult result = MmapPrefault.Run([map.Region()], new PrefaultOptions { IsHugePageAdviceEnabled = false });

        Assert.True(result.HasRun, result.Reason);
        Assert.Equal(0, result.HugePageAdvisedBytes);
        Assert.DoesNotContain("hg", VmFlags(map.Region().Address));
    }

    [Theory]
    [InlineData("always [madvise] never\n", true)]
    [InlineData("[always] madvise never\n", true)]
    [InlineData("always madvise [never]\n", false)]
    [InlineData(null, false)]
    public void IsThpEnabled_ReadsTheBracketedMode(string? mode, bool enabled)
    {
        Assert.Equal(enabled, HugePageAdvice.IsThpEnabled(mode));
    }

    /// <summary>How many /proc/self/maps entries cover the region's range.</summary>
    private static int MappingsUnder(PrefaultRegion region) =>
        ProcMaps.ReadSelf().Count(m => (nuint)m.Start < (nuint)region.End && (nuint)m.End > (nuint)region.Address);

    /// <summary>The VmFlags of the /proc/self/smaps mapping holding <paramref name="address"/>, as two-letter codes.</summary>
    internal static string[] VmFlags(nint address)
    {
        bool inside = false;
        foreach (string line in File.ReadLines("/proc/self/smaps"))
        {
            int dash = line.IndexOf('-', StringComparison.Ordinal);
            int space = line.IndexOf(' ', StringComparison.Ordinal);
            if (dash > 0 && space > dash && line[..dash].All(Uri.IsHexDigit))
            {
                ulong start = Convert.ToUInt64(line[..dash], 16);
                ulong end = Convert.ToUInt64(line[(dash + 1)..space], 16);
                inside = (ulong)address >= start && (ulong)address < end;
            }
            else if (inside && line.StartsWith("VmFlags:", StringComparison.Ordinal))
            {
                return line["VmFlags:".Length..].Split(' ', StringSplitOptions.RemoveEmptyEntries);
            }
        }

        return [];
    }
}
