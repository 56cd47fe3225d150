using System.Globalization;

namespace Sharpi.Prefault.Tests.Platform;

/// <summary>
/// One WILLNEED reads at most one window of a device (the larger of max_sectors_kb and read_ahead_kb), so the library
/// asks for a range one window at a time: the kernel behaviour first, then the window the library works out.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class ReadAheadWindowTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void WillNeed_OverManyWindowsOfAColdFile_ReadsOnlyTheFirst()
    {
        using TestFile file = TestFile.Create(64 * TestFile.MiB);
        long window = ReadAheadWindow.For(DeviceOf(file.Path), out _);
        Assert.True(window * 4 <= file.Length, $"this device's window ({window} bytes) is too large for the test's file to show the cap");
        using MappedFile view = file.Map();
        file.Evict();

        unsafe
        {
            Assert.Equal(0, global::Interop.Libc.Madvise((void*)view.Region().Address, (nuint)file.Length, global::Interop.LinuxConstants.MADV_WILLNEED));
        }

        Thread.Sleep(500); // WILLNEED only starts the reads
        long resident = Residency.OfFile(file.Path).ResidentBytes;
        Assert.InRange(resident, 1, window);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void For_TheDeviceOfATempFile_IsTheLargerOfItsRequestLimitAndReadAhead()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        ulong device = DeviceOf(file.Path);
        string id = $"{device >> 32}:{device & 0xFFFF_FFFF}";
        string queue = Directory.Exists($"/sys/dev/block/{id}/queue") ? $"/sys/dev/block/{id}/queue" : $"/sys/dev/block/{id}/../queue";
        long maxRequest = Kb($"{queue}/max_sectors_kb");
        long readAhead = File.Exists($"/sys/class/bdi/{id}/read_ahead_kb") ? Kb($"/sys/class/bdi/{id}/read_ahead_kb") : Kb($"{queue}/read_ahead_kb");

        Assert.Equal(Math.Clamp(Math.Max(maxRequest, readAhead), ReadAheadWindow.MinBytes, ReadAheadWindow.MaxBytes), ReadAheadWindow.For(device, out _));
    }

    [Theory]
    [InlineData(4096, 128, true)] // vda at read_ahead_kb 128: 4 MiB requests instead of 128 KiB ones
    [InlineData(8192, 8192, false)] // at 8192 the kernel's read-ahead reads as much a request
    [InlineData(8192, 16384, false)] // a window clamped below a larger read-ahead
    [InlineData(128, 0, true)] // read-ahead not known: windows, as before
    [InlineData(128, 64, true)] // the smallest window against a read-ahead below it
    public void ReadsMoreThanReadAhead_OnlyWhereTheWindowIsLarger(long windowKb, long readAheadKb, bool expected) =>
        Assert.Equal(expected, ReadAheadWindow.ReadsMoreThanReadAhead(windowKb * 1024, readAheadKb * 1024));

    [Fact]
    public void For_NoDevice_IsTheKernelsDefaultWindow() => Assert.Equal(ReadAheadWindow.MinBytes, ReadAheadWindow.For(0, out _));

    /// <summary>A sysfs figure in KiB as bytes; 0 where the file is absent (no block queue: btrfs, tmpfs).</summary>
    private static long Kb(string path) => File.Exists(path) ? long.Parse(File.ReadAllText(path).Trim(), CultureInfo.InvariantCulture) * 1024 : 0;

    private static ulong DeviceOf(string path) =>
        FileStatus.TryOf(path) is { } status ? status.Device : throw new InvalidOperationException($"cannot stat {path}");
}
