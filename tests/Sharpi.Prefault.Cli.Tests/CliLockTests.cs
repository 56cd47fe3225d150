using Sharpi.Prefault.Cli;

namespace Sharpi.Prefault.Tests.Cli;

public sealed class CliLockTests
{
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public async Task Lock_HoldsThePagesUntilCancelled_ThenUnlocksAndExitsWithZero()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        using var output = new StringWriter();
        using var error = new StringWriter();
        TextWriter syncOut = TextWriter.Synchronized(output);
        using var cancel = new CancellationTokenSource();
        long lockedBefore = ProcessStatus.ReadStatusBytes("VmLck");

        Task<int> run = CliApp.RunAsync(["lock", file.Path], syncOut, TextWriter.Synchronized(error), cancel.Token);
        await WaitForAsync(() => output.ToString().Contains("holding", StringComparison.Ordinal) || run.IsCompleted);
        bool held = !run.IsCompleted;
        long lockedWhileHeld = ProcessStatus.ReadStatusBytes("VmLck");
        await cancel.CancelAsync();
        int exitCode = await run;

        Assert.True(held, $"exit {exitCode} before holding: {error}");
        Assert.Equal(0, exitCode);
        Assert.True(lockedWhileHeld - lockedBefore >= TestFile.MiB, $"VmLck grew by {lockedWhileHeld - lockedBefore} bytes");
        Assert.Contains("unlocked", output.ToString());
        Assert.Equal(100, Residency.OfFile(file.Path).Percent);
    }

    /// <summary>
    /// The refused path, made to happen here rather than left to the machine's limit: a 64 KiB soft RLIMIT_MEMLOCK, and
    /// as root the tool runs without CAP_IPC_LOCK (setpriv drops it from the bounding and inheritable sets), which
    /// would bypass the limit.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.SetprivCommand))]
    public void Lock_PastRlimitMemlock_ExitsWithOne_AndSaysWhichLimitAndHowToRaiseIt()
    {
        using TestFile file = TestFile.Create(TestFile.MiB);
        string withoutIpcLock = Environment.IsPrivilegedProcess ? "setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock " : "";

        CliRun run = CliProcess.RunShell($"ulimit -S -l 64 && exec {withoutIpcLock}$TOOL lock '{file.Path}'", timeout: TimeSpan.FromSeconds(30));

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("RLIMIT_MEMLOCK is soft 65536 bytes", run.Err, StringComparison.Ordinal);
        Assert.Contains("ulimit -l", run.Err, StringComparison.Ordinal);
        Assert.Contains("nothing locked", run.Err, StringComparison.Ordinal);
        Assert.DoesNotContain("holding", run.Out + run.Err, StringComparison.Ordinal);
    }

    /// <summary>
    /// mlock locks whole pages: a tensor of 12,000 bytes that starts and ends mid-page locks 4 pages. The JSON says the
    /// selection's bytes asked for and locked (equal: all of it is locked), and the pages apart; it used to report the
    /// pages as <c>lockedBytes</c>, more locked than requested.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public async Task Lock_Json_OfATensorEndingMidPage_SaysTheSelectionLockedAndThePagesApart()
    {
        using var model = new CliModelFiles();
        string gguf = model.Write("mid.gguf", new Models.GgufBuilder().F32("a", 3000).F32("b", 3000).F32("c", 3000).Build());
        TensorInfo b = TensorIndex.Read(gguf).Tensors.Single(t => t.Name == "b");
        long page = Environment.SystemPageSize;
        long pages = (b.Offset + b.Length + page - 1) / page * page - b.Offset / page * page;
        Assert.True(pages > b.Length, $"the tensor at {b.Offset} (+{b.Length}) must end mid-page for this test");

        (int exitCode, string output, string error) = await LockUntilHeldAsync(["lock", gguf, "--tensor", "b", "--json"]);

        Assert.True(exitCode == 0, error);
        JsonElement json = JsonDocument.Parse(output).RootElement;
        Assert.Equal(12_000, json.GetProperty("requestedBytes").GetInt64());
        Assert.Equal(12_000, json.GetProperty("lockedBytes").GetInt64());
        Assert.Equal(pages, json.GetProperty("lockedPageBytes").GetInt64());
        Assert.Contains($"locked 11.72 KiB of 11.72 KiB ({pages >> 10}.00 KiB in whole pages)", error, StringComparison.Ordinal);
    }

    /// <summary>
    /// A partial lock: under a 64 KiB RLIMIT_MEMLOCK (CAP_IPC_LOCK dropped, as root bypasses the limit) the first of two
    /// page-aligned 40,000-byte tensors (10 pages each) is locked and the second refused. <c>lockedBytes</c> is the
    /// first tensor's bytes, <c>lockedPageBytes</c> its pages, and the refusal is in <c>failures</c>.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.SetprivCommand))]
    public void Lock_Json_WhenPartlyRefused_SaysTheSelectedBytesThatAreLocked()
    {
        using var model = new CliModelFiles();
        string gguf = model.Write("two.gguf", new Models.GgufBuilder().UInt32("general.alignment", 4096).F32("a", 10_000).F32("b", 10_000).Build());
        string withoutIpcLock = Environment.IsPrivilegedProcess ? "setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock " : "";

        using CliProcess tool = CliProcess.StartShell($"ulimit -S -l 64 && exec {withoutIpcLock}$TOOL lock '{gguf}' --tensor '*' --json");
        bool held = tool.WaitFor("holding", TimeSpan.FromSeconds(30));
        tool.Signal("TERM");
        CliRun run = tool.Wait(TimeSpan.FromSeconds(30));

        Assert.True(held, run.Err);
        Assert.Equal(1, run.ExitCode);
        JsonElement json = run.Json();
        Assert.Equal(80_000, json.GetProperty("requestedBytes").GetInt64());
        Assert.Equal(40_000, json.GetProperty("lockedBytes").GetInt64());
        Assert.Equal(40_960, json.GetProperty("lockedPageBytes").GetInt64());
        Assert.Single(json.GetProperty("failures").EnumerateArray());
        Assert.Contains("locked 39.06 KiB of ", run.Err, StringComparison.Ordinal);
        Assert.Contains(" KiB (40.00 KiB in whole pages)", run.Err, StringComparison.Ordinal);
    }

    /// <summary>
    /// A sparse file's holes are left out of the lock (locking one allocates it, which fills a tmpfs): the tool says the
    /// data it locked, not the file's length, and why the rest is not locked. It said "locked 1.00 GiB of 1.00 GiB
    /// (8.00 MiB in whole pages)" for a 1 GiB file holding 8 MiB.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Lockable1MiB))]
    public async Task Lock_Json_OfASparseFile_SaysTheDataLocked_AndThatTheRestIsHoles()
    {
        using TestFile file = TestFile.CreateSparse(16 * TestFile.MiB);
        using (var stream = new FileStream(file.Path, FileMode.Open, FileAccess.Write))
        {
            stream.Write(Enumerable.Repeat((byte)0x5A, (int)TestFile.MiB).ToArray()); // the first MiB is data, the rest a hole
        }

        (int exitCode, string output, string error) = await LockUntilHeldAsync(["lock", file.Path, "--json"]);

        Assert.True(exitCode == 0, error);
        JsonElement json = JsonDocument.Parse(output).RootElement;
        Assert.Equal(16 * TestFile.MiB, json.GetProperty("requestedBytes").GetInt64());
        Assert.Equal(TestFile.MiB, json.GetProperty("lockedBytes").GetInt64());
        Assert.Equal(TestFile.MiB, json.GetProperty("lockedPageBytes").GetInt64());
        Assert.Contains("locked 1.00 MiB of 16.00 MiB in 1 file(s); the rest is holes of sparse files", error, StringComparison.Ordinal);
    }

    private static async Task<(int ExitCode, string Out, string Err)> LockUntilHeldAsync(string[] args)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        TextWriter syncErr = TextWriter.Synchronized(error);
        using var cancel = new CancellationTokenSource();
        Task<int> run = CliApp.RunAsync(args, TextWriter.Synchronized(output), syncErr, cancel.Token);
        await WaitForAsync(() => error.ToString().Contains("holding", StringComparison.Ordinal) || run.IsCompleted);
        await cancel.CancelAsync();
        int exitCode = await run;
        return (exitCode, output.ToString(), error.ToString());
    }

    private static async Task WaitForAsync(Func<bool> condition)
    {
        for (int i = 0; i < 300 && !condition(); i++)
        {
            await Task.Delay(50);
        }
    }
}
