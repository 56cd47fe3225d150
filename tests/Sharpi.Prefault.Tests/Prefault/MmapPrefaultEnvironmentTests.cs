using System.Runtime.InteropServices;
using Microsoft.Extensions.Logging;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>SHARPI_PREFAULT and SHARPI_PREFAULT_RAM_FRACTION, set for real on this process; serialized.</summary>
[Collection(SerializedEnvironment.Name)]
public sealed class MmapPrefaultEnvironmentTests
{
    private const long MiB = TestFile.MiB;

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public async Task WarmAsync_WithKillSwitch_ReadsNothing_AndSaysWhy()
    {
        // The page cache warm-up is a prefault too (the LLamaSharp companion starts one for a read-mode load): the
        // operators' switch must stop it as it stops Run.
        using TestFile file = TestFile.Create(16 * MiB);
        using var env = new EnvironmentVariableScope("SHARPI_PREFAULT", "off");

        PageCacheWarmResult result = await PageCache.WarmAsync(file.Path);

        Assert.Equal(0, result.BytesRead);
        Assert.False(result.IsComplete);
        Assert.Equal(file.Length, result.FileLength);
        Assert.Contains("switched off", result.Error, StringComparison.Ordinal);
        await Task.Delay(200); // a read that was started anyway would show by now
        Assert.True(Residency.OfFile(file.Path).Percent < 1, "the warm-up read the file under the kill switch");
    }

    [Theory]
    [InlineData("0")]
    [InlineData("off")]
    [InlineData(" FALSE ")]
    public unsafe void Run_WithKillSwitch_TouchesNothing(string value)
    {
        using var env = new EnvironmentVariableScope("SHARPI_PREFAULT", value);
        void* block = NativeMemory.Alloc(4096);
        try
        {
            // The region claims a terabyte behind a 4 KiB allocation: any touch, populate or even mincore walk
            // over it would fault or fail. Under the kill switch nothing may look at it.
            var lie = new PrefaultRegion((nint)block, 1L << 40, "lie");
            var log = new ListLogger();

            PrefaultResult result = MmapPrefault.Run([lie], new PrefaultOptions { Logger = log, RamGate = RamGate.Always });

            Assert.False(result.HasRun);
            Assert.Equal(PrefaultMethod.None, result.Method);
            Assert.Equal(0, result.Bytes);
            Assert.Contains("switched off", result.Reason, StringComparison.Ordinal);
            Assert.Equal(MmapPrefault.Decide(PrefaultMode.Off, 0, 0, default).Reason, result.Reason); // decided at step 1 alone, in Decide's words
            Assert.Contains(log.At(LogLevel.Information), m => m.Contains("skipped", StringComparison.Ordinal));
        }
        finally
        {
            NativeMemory.Free(block);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithKillSwitch_LeavesAColdFileCold()
    {
        using var env = new EnvironmentVariableScope("SHARPI_PREFAULT", "off");
        using TestFile file = TestFile.Create(32 * MiB);
        using MappedFile map = file.Map();

        MmapPrefault.Run([map.Region()]);

        Assert.True(map.ResidentPercent() < 1);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithUnknownMode_WarnsNamingTheValue_AndRunsAsAuto()
    {
        (PrefaultResult result, string[] warnings, double residentPercent) = RunOverAColdFileWith("SHARPI_PREFAULT", "  sometimes ", 8 * MiB);

        Assert.True(result.HasRun);
        string warning = Assert.Single(warnings);
        Assert.Contains("'sometimes'", warning, StringComparison.Ordinal);
        Assert.Contains("force", warning, StringComparison.Ordinal);
        Assert.Equal(100.0, residentPercent, 3);
    }

    /// <summary>A zero-width space pasted after "off" read as <c>unknown value 'off'</c>: the invisible character is written out.</summary>
    [Theory]
    [InlineData("off\u200b", "'off\\u200B'")]
    [InlineData("\ufeffoff", "'\\uFEFFoff'")]
    [InlineData("o\u0007ff\u001b[2J", "'o\\u0007ff\\u001B[2J'")]
    [InlineData("of\u00a0f", "'of\\u00A0f'")]
    public void Run_WithAnUnknownModeHoldingInvisibleCharacters_WarnsWithThemWrittenOut(string value, string quoted)
    {
        using var env = new EnvironmentVariableScope("SHARPI_PREFAULT", value);
        var log = new ListLogger();

        MmapPrefault.Run([], new PrefaultOptions { Logger = log });

        string warning = Assert.Single(log.At(LogLevel.Warning));
        Assert.Contains($"unknown value {quoted}", warning, StringComparison.Ordinal);
        Assert.Contains("accepted values are 0, off, false, 1, on, force, auto", warning, StringComparison.Ordinal);
    }

    [Fact]
    public void Run_WithAnInvalidFractionHoldingInvisibleCharacters_WarnsWithThemWrittenOut()
    {
        using var env = new EnvironmentVariableScope("SHARPI_PREFAULT_RAM_FRACTION", "0.5\u200b");
        var log = new ListLogger();

        MmapPrefault.Run([], new PrefaultOptions { Logger = log });

        Assert.Contains(log.At(LogLevel.Warning), m => m.Contains("invalid value '0.5\\u200B'", StringComparison.Ordinal));
    }

    [Fact]
    public void Visible_ShowsEveryPrintableCharacterAsItself()
    {
        Assert.Equal("auto sometimes é 😀 日本", OperatorSettings.Visible("auto sometimes é 😀 日本"));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WhenTheRegionsDoNotFit_PrefaultsInTheGivenOrderUpToTheBudget()
    {
        // 32 MiB gaps between the regions: the kernel's read-around on a mmap fault reads up to half its
        // read-ahead window (8 MiB here) on each side of the faulting page, which is the kernel's doing, not ours.
        using TestFile file = TestFile.Create(256 * MiB);
        using MappedFile map = file.Map();
        PrefaultRegion low = map.Region(0, 64 * MiB, "low");
        PrefaultRegion mid = map.Region(96 * MiB, 64 * MiB, "mid");
        PrefaultRegion high = map.Region(192 * MiB, 64 * MiB, "high");

        // A fraction that leaves room for ~96 MiB of this machine's available memory right now.
        long available = MemoryFigures.Current().AvailableBytes!.Value;
        double fraction = 96.0 * MiB / available;
        using var env = new EnvironmentVariableScope("SHARPI_PREFAULT_RAM_FRACTION", fraction.ToString("R", System.Globalization.CultureInfo.InvariantCulture));

        // Hot first: high, then low, then mid.
        PrefaultResult result = MmapPrefault.Run([high, low, mid]);

        Assert.True(result.HasRun, result.Reason);
        Assert.True(result.IsPartial, result.Reason);
        Assert.Equal(100.0, Residency.Measure(high).Percent, 3);
        Assert.InRange(Residency.Measure(low).Percent, 45, 75);
        Assert.True(Residency.Measure(mid).Percent < 1, $"the region past the budget must be left alone: {Residency.Measure(mid).Percent:F2}% resident, low {Residency.Measure(low).Percent:F2}%, {result.Reason}");
        Assert.InRange(result.BytesSkipped, 64 * MiB, 128 * MiB);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithForceMode_IgnoresTheRamBudget()
    {
        using var mode = new EnvironmentVariableScope("SHARPI_PREFAULT", "force");
        using var fraction = new EnvironmentVariableScope("SHARPI_PREFAULT_RAM_FRACTION", "0.0000001");
        using TestFile file = TestFile.Create(16 * MiB);
        using MappedFile map = file.Map();

        PrefaultResult result = MmapPrefault.Run([map.Region()]);

        Assert.False(result.IsPartial);
        Assert.Equal(100.0, map.ResidentPercent(), 3);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_WithInvalidFraction_WarnsAndUsesTheOptionsFraction()
    {
        (PrefaultResult result, string[] warnings, _) = RunOverAColdFileWith("SHARPI_PREFAULT_RAM_FRACTION", "1.5", 4 * MiB);

        Assert.True(result.HasRun);
        Assert.Contains(warnings, m => m.Contains("SHARPI_PREFAULT_RAM_FRACTION", StringComparison.Ordinal) && m.Contains("'1.5'", StringComparison.Ordinal));
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public async Task Start_WithKillSwitch_CompletesWithoutRunning()
    {
        using var env = new EnvironmentVariableScope("SHARPI_PREFAULT", "off");
        using TestFile file = TestFile.Create(16 * MiB);
        using MappedFile map = file.Map();

        await using PrefaultHandle handle = MmapPrefault.Start([map.Region()]);
        PrefaultResult result = await handle.Completion;

        Assert.False(result.HasRun);
        Assert.True(map.ResidentPercent() < 1);
    }

    /// <summary>
    /// Runs over a cold file of <paramref name="bytes"/> with <paramref name="variable"/> set to <paramref name="value"/>;
    /// returns the result, the warnings logged and how much of the file is resident after.
    /// </summary>
    private static (PrefaultResult Result, string[] Warnings, double ResidentPercent) RunOverAColdFileWith(string variable, string value, long bytes)
    {
        using var env = new EnvironmentVariableScope(variable, value);
        using TestFile file = TestFile.Create(bytes);
        using MappedFile map = file.Map();
        var log = new ListLogger();

        PrefaultResult result = MmapPrefault.Run([map.Region()], new PrefaultOptions { Logger = log });
        return (result, [.. log.At(LogLevel.Warning)], map.ResidentPercent());
    }
}
