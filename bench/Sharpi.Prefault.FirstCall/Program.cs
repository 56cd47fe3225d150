using System.Diagnostics;
using System.IO.MemoryMappedFiles;
using System.Runtime;
using System.Runtime.CompilerServices;
using Sharpi.Prefault;

// One sample of the engine's first call: map the file, time MmapPrefault.Run's first call (and the JIT's work inside it),
// then a second call in the same process. Prints one line of key=value pairs for the bench's `firstcall` command and
// its fresh-process coldstart rows: load_ms is the map plus the first call, what an engine waits for on a cold file.
if (args.Length < 1)
{
    Console.Error.WriteLine("usage: Sharpi.Prefault.FirstCall FILE");
    return 2;
}

string path = args[0];
long length = new FileInfo(path).Length;

// What the measurement itself needs, touched once before it.
int tasksBefore = Tasks.Count();
_ = Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp());
_ = Cpu.Used();
_ = JitInfo.GetCompiledMethodCount();
_ = JitInfo.GetCompilationTime();

long mapStarted = Stopwatch.GetTimestamp();
using MemoryMappedFile file = MemoryMappedFile.CreateFromFile(path, FileMode.Open, null, 0, MemoryMappedFileAccess.Read);
using MemoryMappedViewAccessor view = file.CreateViewAccessor(0, 0, MemoryMappedFileAccess.Read);
nint address = Mapped.Address(view);
PrefaultRegion[] regions = [new PrefaultRegion(address, length, "weights")];
TimeSpan mapElapsed = Stopwatch.GetElapsedTime(mapStarted);

TimeSpan cpuBefore = Cpu.Used();
long methodsBefore = JitInfo.GetCompiledMethodCount();
TimeSpan jitBefore = JitInfo.GetCompilationTime();

long started = Stopwatch.GetTimestamp();
PrefaultResult first = MmapPrefault.Run(regions);
long finished = Stopwatch.GetTimestamp();
TimeSpan firstElapsed = Stopwatch.GetElapsedTime(started, finished);
TimeSpan loadElapsed = Stopwatch.GetElapsedTime(mapStarted, finished);
TimeSpan cpuAfter = Cpu.Used();

long methodsAfter = JitInfo.GetCompiledMethodCount();
TimeSpan jitAfter = JitInfo.GetCompilationTime();
int tasksAfter = Tasks.Count();

started = Stopwatch.GetTimestamp();
PrefaultResult second = MmapPrefault.Run(regions);
TimeSpan secondElapsed = Stopwatch.GetElapsedTime(started);

Console.WriteLine(string.Create(System.Globalization.CultureInfo.InvariantCulture,
    $"firstcall first_ms={firstElapsed.TotalMilliseconds:0.000} second_ms={secondElapsed.TotalMilliseconds:0.000} " +
    $"map_ms={mapElapsed.TotalMilliseconds:0.000} load_ms={loadElapsed.TotalMilliseconds:0.000} " +
    $"cpu_ms={(cpuAfter - cpuBefore).TotalMilliseconds:0.000} " +
    $"jit_methods={methodsAfter - methodsBefore} jit_ms={(jitAfter - jitBefore).TotalMilliseconds:0.000} " +
    $"threads={first.Threads} tasks_before={tasksBefore} tasks_after={tasksAfter} method={first.Method} " +
    $"has_run={first.HasRun} bytes={first.Bytes} resident_before={first.BytesAlreadyResident} second_method={second.Method} " +
    $"second_threads={second.Threads} runtime={(RuntimeFeature.IsDynamicCodeSupported ? "jit" : "aot")}"));
return 0;

internal static class Mapped
{
    internal static unsafe nint Address(MemoryMappedViewAccessor view)
    {
        byte* pointer = null;
        view.SafeMemoryMappedViewHandle.AcquirePointer(ref pointer);
        return (nint)(pointer + view.PointerOffset);
    }
}

internal static class Cpu
{
    /// <summary>CPU time of the whole process so far, every thread's (exited ones too), user and kernel: steadier than wall time on a busy machine.</summary>
    internal static TimeSpan Used()
    {
#if NET9_0_OR_GREATER
        Environment.ProcessCpuUsage usage = Environment.CpuUsage;
        return usage.TotalTime;
#else
        return System.Diagnostics.Process.GetCurrentProcess().TotalProcessorTime;
#endif
    }
}

internal static class Tasks
{
    /// <summary>The process's threads now (Linux: entries of /proc/self/task; -1 elsewhere).</summary>
    internal static int Count()
    {
        if (!OperatingSystem.IsLinux())
        {
            return -1;
        }

        int n = 0;
        foreach (string _ in Directory.EnumerateDirectories("/proc/self/task"))
        {
            n++;
        }

        return n;
    }
}
