using Sharpi.Prefault;
using Sharpi.Prefault.WindowsHarness;

// The library's Windows paths (VirtualQuery, PrefetchVirtualMemory, QueryWorkingSetEx, VirtualLock/VirtualUnlock,
// CreateFileW with FILE_FLAG_NO_BUFFERING) through the public API, against real files. One check per line, then
// "N passed, N failed"; the exit code is non-zero on any failure. CI runs it under Wine (.ci/run).
if (!OperatingSystem.IsWindows())
{
    Console.Error.WriteLine("This harness checks the Windows paths; run it on Windows or under Wine.");
    return 2;
}

Console.WriteLine($"Sharpi.Prefault Windows harness: {Environment.OSVersion}, {Environment.ProcessorCount} CPUs, page {Environment.SystemPageSize} B");
var checks = new Checks();
string scratch = Path.Combine(Path.GetTempPath(), $"sharpi-winharness-{Environment.ProcessId}");
Directory.CreateDirectory(scratch);
try
{
    string weights = TestFiles.Create(Path.Combine(scratch, "weights.bin"), 16 << 20, seed: 1);
    WindowsPaths.Residency(checks, weights);
    WindowsPaths.Prefault(checks, weights);
    WindowsPaths.PrefaultOfUnmappedRegions(checks);
    WindowsPaths.Lock(checks, weights);
    WindowsPaths.DirectRead(checks, TestFiles.Create(Path.Combine(scratch, "direct.bin"), (3 << 20) + 12345, seed: 2));
}
catch (Exception e)
{
    checks.Fail("harness ran to the end", e.ToString());
}
finally
{
    try
    {
        Directory.Delete(scratch, recursive: true);
    }
    catch (IOException)
    {
        // A mapping still closing; the temp folder is the OS's to clean.
    }
}

Console.WriteLine($"{checks.Passed} passed, {checks.Failed} failed");
return checks.Failed == 0 ? 0 : 1;
