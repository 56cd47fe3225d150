using System.Text;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.Platform;

/// <summary>
/// The sweep reads a populated chunk whole only while the processors have room (<see cref="CpuRoom"/>, from
/// /proc/stat). The parser is checked on the kernel's format and on this machine's file; the signal itself with every
/// core kept busy by this test, where it must say "no room".
/// </summary>
public sealed class CpuRoomTests
{
    [Fact]
    public void TryParse_AddsTheEightTimeFields_AndCountsIdleAndIowaitAsIdle()
    {
        byte[] stat = Encoding.ASCII.GetBytes("cpu  100 2 30 400 50 6 7 8 90 10\ncpu0 50 1 15 200 25 3 3 4 45 5\nintr 1 2 3\n");

        Assert.True(CpuRoom.TryParse(stat, out long idle, out long total));

        Assert.Equal(450, idle);
        Assert.Equal(100 + 2 + 30 + 400 + 50 + 6 + 7 + 8, total); // guest and guest_nice are in user and nice already
    }

    [Theory]
    [InlineData("")]
    [InlineData("cpu0 1 2 3 4 5 6 7 8\n")]
    [InlineData("intr 1 2 3\n")]
    [InlineData("cpu  1 2 x\n")]
    public void TryParse_OfAnythingButTheAggregateLine_IsFalse(string text) =>
        Assert.False(CpuRoom.TryParse(Encoding.ASCII.GetBytes(text), out _, out _));

    [Fact]
    public void IsRoom_IsSixTenthsOfTheTimeIdle()
    {
        Assert.True(CpuRoom.IsRoom(idle: 60, total: 100));
        Assert.False(CpuRoom.IsRoom(idle: 59, total: 100));
        Assert.False(CpuRoom.IsRoom(idle: 0, total: 0));
    }

    [LinuxFact]
    public void TryStart_ReadsThisMachinesProcStat()
    {
        Assert.True(CpuRoom.TryParse(File.ReadAllBytes("/proc/stat"), out long idle, out long total));
        Assert.InRange(idle, 0, total);
        Assert.NotNull(CpuRoom.TryStart());
    }

    [LinuxFact]
    public void HasRoom_BeforeAnIntervalHasPassed_IsFalse()
    {
        CpuRoom room = CpuRoom.TryStart()!;

        Assert.False(room.HasRoom());
    }

    /// <summary>Two spinning threads a processor: whatever else runs, under six tenths of the time is idle.</summary>
    [LinuxFact]
    public void HasRoom_WhileEveryCoreIsBusy_IsFalse()
    {
        using var stop = new CancellationTokenSource();
        var spinners = new Thread[Environment.ProcessorCount * 2];
        for (int i = 0; i < spinners.Length; i++)
        {
            spinners[i] = new Thread(() =>
            {
                while (!stop.IsCancellationRequested)
                {
                    Thread.SpinWait(1000);
                }
            }) { IsBackground = true };
            spinners[i].Start();
        }

        try
        {
            Thread.Sleep(100);
            CpuRoom room = CpuRoom.TryStart()!;
            bool everRoom = false;
            for (int i = 0; i < 5; i++)
            {
                Thread.Sleep(CpuRoom.Interval + TimeSpan.FromMilliseconds(20));
                everRoom |= room.HasRoom();
            }

            Assert.False(everRoom);
        }
        finally
        {
            stop.Cancel();
            foreach (Thread spinner in spinners)
            {
                spinner.Join();
            }
        }
    }
}
