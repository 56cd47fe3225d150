using System.Globalization;
using Sharpi.Prefault.Tests.Mappings;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// The test assembly's own entry point (the test SDK's generated one is turned off): <c>dotnet Sharpi.Prefault.Tests.dll
/// CASE ARGS</c> runs one library case in a child process, for what could kill the test host (a process at
/// vm.max_map_count, which the runtime answers with an abort) or needs a process of its own (a pids cgroup). The test
/// runner loads the assembly and never calls this. Each case prints what it saw as <c>key=value</c> lines, and
/// <c>done</c> last.
/// </summary>
internal static class ChildProgram
{
    public static int Main(string[] args)
    {
        if (args.Length == 0)
        {
            return 2;
        }

        switch (args[0])
        {
            case ChildCases.LockSplitPages:
                return LockSplitPages(args[1], int.Parse(args[2], CultureInfo.InvariantCulture));
            case ChildCases.NoThreadsLeft:
                return NoThreadsLeft(args[1], args[2], args[3]);
            case ChildCases.LockUnderMlockall:
                return LockUnderMlockall(args[1]);
            case ChildCases.TouchUnderSeccomp:
                return TouchUnderSeccomp(args[1], args[2], Enum.Parse<PrefaultStrategy>(args[3]), int.Parse(args[4], CultureInfo.InvariantCulture), args[5] == "mask-maps");
            case ChildCases.TouchAnonymousUnderSeccomp:
                return TouchAnonymousUnderSeccomp(args[1], int.Parse(args[2], CultureInfo.InvariantCulture));
            case ChildCases.TouchWithoutMemfd:
                return TouchWithoutMemfd(args[1]);
            case ChildCases.ThrowingCallback:
                return ThrowingCallback(args[1], args[2]);
            case ChildCases.FirstRunMetrics:
                return FirstRunMetrics(args[1]);
            case ChildCases.StageAtMapLimit:
                return StageAtMapLimit(args[1], int.Parse(args[2], CultureInfo.InvariantCulture), int.Parse(args[3], CultureInfo.InvariantCulture));
            case ChildCases.MeasureAndRun:
                return MeasureAndRun(args[1]);
            case ChildCases.MeasureBesideAnonymous:
                return MeasureBesideAnonymous(args[1]);
            case ChildCases.NicesDuringRun:
                return NicesDuringRun(args[1]);
            case ChildCases.HeaderParsePeak:
                return HeaderParsePeak(args[1], args[2]);
            case Platform.FifoSwapOpens.Case:
                return Platform.FifoSwapOpens.Run(args[1], args[2], int.Parse(args[3], CultureInfo.InvariantCulture));
            case ChildCases.ResidencyWithoutCachestat:
                return ResidencyWithoutCachestat(args[1], args.Length > 2 ? args[2] : null);
            default:
                Console.Error.WriteLine($"unknown case '{args[0]}'");
                return 2;
        }
    }

    /// <summary>
    /// Maps each file of <paramref name="folder"/> copy-on-write and read-write (as ONNX Runtime maps initializers), fills
    /// the process with small anonymous mappings until <paramref name="slotsLeft"/> remain under vm.max_map_count, then
    /// prefaults every file's mapping whole: a staging view per file past the room aborted the runtime (exit 134).
    /// </summary>
    private static unsafe int StageAtMapLimit(string folder, int files, int slotsLeft)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        long page = Environment.SystemPageSize;
        var maps = new List<NativeMmap>();
        for (int i = 0; i < files; i++)
        {
            string path = Path.Combine(folder, $"f{i}");
            PageCache.Evict(path); // cold: the sweep has something to read, so it stages
            maps.Add(NativeMmap.Map(path, 0, 16 * page, writable: true));
        }

        long limit = MappingRoom.ReadLimit() ?? 65530;
        var filler = new List<nint>();
        for (long count = MappingRoom.CountSelfMappings(); count < limit - slotsLeft; count++)
        {
            // Alternating protections keep neighbours from merging into one mapping.
            int protection = filler.Count % 2 == 0 ? NativeTestMethods.ProtRead : NativeTestMethods.ProtRead | NativeTestMethods.ProtWrite;
            filler.Add(NativeTestMethods.Map(page, protection, NativeTestMethods.MapPrivate | NativeTestMethods.MapAnonymousFlag));
        }

        Console.WriteLine($"mappings={MappingRoom.CountSelfMappings()}");
        var regions = new PrefaultRegion[maps.Count];
        for (int i = 0; i < regions.Length; i++)
        {
            regions[i] = new PrefaultRegion(maps[i].Address, maps[i].Length, $"f{i}");
        }

        PrefaultResult result = MmapPrefault.Run(regions, new PrefaultOptions { RamGate = RamGate.Always });
        Console.WriteLine($"bytes={result.Bytes}");
        Console.WriteLine("done");
        return 0;
    }

    /// <summary>
    /// Measures a file's residency (through a mapping, and whole with OfFile), prefaults the mapping, and measures
    /// again: run as a user who may not write the file, for whom the kernel hides its page cache.
    /// </summary>
    private static int MeasureAndRun(string path)
    {
        using MappedModel model = MappedModel.OpenFile(path);
        PrefaultRegion whole = model.FileRegion(path);
        ResidencyInfo measured = Residency.Measure(whole);
        Console.WriteLine($"measureResident={measured.ResidentBytes}");
        Console.WriteLine($"measureUnknown={measured.UnknownBytes}");
        Console.WriteLine($"measureError={measured.Error}");
        ResidencyInfo ofFile = Residency.OfFile(path);
        Console.WriteLine($"ofFileResident={ofFile.ResidentBytes}");
        Console.WriteLine($"ofFileUnknown={ofFile.UnknownBytes}");
        PrefaultResult result = MmapPrefault.Run([whole], new PrefaultOptions { RamGate = RamGate.Always });
        Console.WriteLine($"runBytes={result.Bytes}");
        Console.WriteLine($"runAlreadyResident={result.BytesAlreadyResident}");
        Console.WriteLine($"runAlreadyResidentUnknown={result.BytesAlreadyResidentUnknown}");
        Console.WriteLine($"runResident={result.BytesResident}");
        Console.WriteLine($"runResidentUnknown={result.BytesResidentUnknown}");
        Console.WriteLine($"runReason={result.Reason}");
        ResidencyInfo after = Residency.Measure(whole);
        Console.WriteLine($"afterResident={after.ResidentBytes}");
        Console.WriteLine($"afterUnknown={after.UnknownBytes}");
        Console.WriteLine("done");
        return 0;
    }

    /// <summary>
    /// Measures one range over a file mapping and the anonymous memory right after it (never touched): no cachestat
    /// covers that range, so mincore counts it, and mincore says "resident" for every page of a file this user may not
    /// write.
    /// </summary>
    private static unsafe int MeasureBesideAnonymous(string path)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        long length = new FileInfo(path).Length;
        nint start = NativeTestMethods.Map(2 * length, NativeTestMethods.ProtRead, NativeTestMethods.MapPrivate | NativeTestMethods.MapAnonymousFlag);
        using (Microsoft.Win32.SafeHandles.SafeFileHandle file = File.OpenHandle(path))
        {
            _ = NativeTestMethods.MapFileAt(start, file, length, NativeTestMethods.ProtRead, NativeTestMethods.MapShared);
        }

        ResidencyInfo measured = Residency.Measure(new PrefaultRegion(start, 2 * length, "file+anonymous"));
        Console.WriteLine($"resident={measured.ResidentBytes}");
        Console.WriteLine($"unknown={measured.UnknownBytes}");
        NativeTestMethods.Unmap(start, 2 * length);
        Console.WriteLine("done");
        return 0;
    }

    /// <summary>
    /// As an engine that calls <c>mlockall(MCL_CURRENT | MCL_FUTURE)</c> and then maps its weights (every later mapping
    /// is locked as it is made): takes a lease over the middle half of <paramref name="path"/>'s mapping, disposes it,
    /// and prints VmLck and how much of the mapping is still locked (smaps VmFlags lo).
    /// </summary>
    private static int LockUnderMlockall(string path)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        long length = new FileInfo(path).Length;
        NativeTestMethods.LockAll(NativeTestMethods.MclCurrent | NativeTestMethods.MclFuture);
        using NativeMmap map = NativeMmap.Map(path, 0, length, shared: true);
        Console.WriteLine($"mappingLocked={LockedBytesOf(map.Address, length)}");
        long before = ProcessStatus.ReadStatusBytes("VmLck");
        LockLease lease = MmapLock.Lock([new PrefaultRegion(map.Address + (nint)(length / 4), length / 2, "blk.1")], new LockOptions { RamGate = RamGate.Always });
        Console.WriteLine($"leaseLocked={lease.LockedBytes}");
        Console.WriteLine($"leaseAlreadyLocked={lease.AlreadyLockedBytes}");
        Console.WriteLine($"fullyLocked={lease.IsFullyLocked}");
        lease.Dispose();
        Console.WriteLine($"vmLckChange={ProcessStatus.ReadStatusBytes("VmLck") - before}");
        Console.WriteLine($"mappingLockedAfterDispose={LockedBytesOf(map.Address, length)}");
        NativeTestMethods.UnlockAll();
        Console.WriteLine("done");
        return 0;
    }

    private static long LockedBytesOf(nint address, long length)
    {
        long locked = 0;
        foreach ((nint start, nint end) in LockedMappings.Read(address, address + (nint)length))
        {
            locked += end - start;
        }

        return locked;
    }

    /// <summary>
    /// Under a seccomp filter that refuses process_vm_readv and MADV_POPULATE_READ (so the sweep cannot read through
    /// the kernel and <see cref="PrefaultStrategy.Auto"/> falls back to the touch), prefaults a mapping of
    /// <paramref name="path"/> <paramref name="iterations"/> times while the file shrinks: <paramref name="when"/>
    /// "during" truncates it from the run's first progress report (once its first chunk is swept, with 511 to go),
    /// "before" before each run, "deleted" before each run and
    /// the file is deleted too (so no path names it, and its length cannot be asked). A load past the file's end
    /// raises SIGBUS, which ends this process (exit 134 or 135) before it prints <c>done</c>. With
    /// <paramref name="maskMaps"/> (started in a mount namespace of its own) its /proc/PID/maps reads empty.
    /// </summary>
    private static int TouchUnderSeccomp(string path, string when, PrefaultStrategy strategy, int iterations, bool maskMaps)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        byte[] content = File.ReadAllBytes(path);
        long length = content.Length;
        using var stream = new FileStream(path, FileMode.Open, FileAccess.ReadWrite, FileShare.ReadWrite);
        using var map = System.IO.MemoryMappedFiles.MemoryMappedFile.CreateFromFile(stream, null, length,
            System.IO.MemoryMappedFiles.MemoryMappedFileAccess.Read, HandleInheritability.None, leaveOpen: true);
        using var view = map.CreateViewAccessor(0, length, System.IO.MemoryMappedFiles.MemoryMappedFileAccess.Read);
        PrefaultRegion region = PrefaultRegion.FromView(view, "racing");

        if (maskMaps)
        {
            ChildProcess.MaskOwnProcMaps();
        }

        SeccompFilter.Install(refusePopulate: true);
        Console.WriteLine($"kernelChecked={SafeTouch.IsKernelChecked}");
        Console.WriteLine($"populate={PopulateSupport.IsSupported(out _)}");
        Console.WriteLine($"maps={ProcMaps.ReadSelf().Length}");

        var random = new Random(20261124);
        var truncation = new TruncateOnFirstReport(stream);
        PrefaultOptions options = new PrefaultOptions
        {
            Strategy = strategy,
            RamGate = RamGate.Always,
            ChunkSize = 16 * 1024, // many chunks: the sweep goes on well past the truncation
            // One thread, so the first report comes after the first of 512 chunks in every run. With two, the other
            // thread sometimes swept the whole file before the first report, and the run saw no truncation at all.
            MaxDegreeOfParallelism = 1,
            Progress = when == "during" ? truncation : null,
        };

        int failed = 0;
        long bytes = 0;
        PrefaultMethod method = PrefaultMethod.None;
        long newLength = length;
        for (int i = 0; i < iterations; i++)
        {
            // Written back, not just lengthened: a file lengthened by SetLength is a hole there, which the plan leaves out.
            stream.Position = newLength;
            stream.Write(content, (int)newLength, (int)(length - newLength));
            stream.Flush();
            newLength = random.NextInt64(0, length / 8);
            if (when is "before" or "deleted")
            {
                stream.SetLength(newLength);
            }

            if (when == "deleted")
            {
                File.Delete(path); // the open stream and the mapping keep it alive
            }

            truncation.Arm(newLength);
            PrefaultResult result = MmapPrefault.Run([region], options);
            failed += result.Failures.Count > 0 ? 1 : 0;
            bytes += result.Bytes;
            method = result.Method;
            if (i == 0 && result.Failures.Count > 0)
            {
                Console.WriteLine($"failure={result.Failures[0].Message}");
            }
        }

        Console.WriteLine($"method={method}");
        Console.WriteLine($"runsWithFailures={failed}");
        Console.WriteLine($"truncatedWhileRunning={truncation.Count}");
        Console.WriteLine($"bytes={bytes}");
        Console.WriteLine("done");
        return 0;
    }

    /// <summary>
    /// Under a seccomp filter that refuses process_vm_readv and MADV_POPULATE_READ, touches memory of no file whose
    /// pages a load cannot always fault in: "unmapped", a private anonymous mapping that the sweep's own thread unmaps
    /// at the run's first progress report (as an engine frees a buffer while its prefault runs), for
    /// <paramref name="iterations"/> runs; "vvar", the kernel's [vvar] pages, which are readable in /proc/self/maps but
    /// raise SIGBUS on a load (no time-namespace page behind them). A load of either ends this process (exit 134)
    /// before it prints <c>done</c>.
    /// </summary>
    private static int TouchAnonymousUnderSeccomp(string what, int iterations)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        var vvar = new List<PrefaultRegion>();
        foreach (ProcMapEntry m in ProcMaps.ReadSelf())
        {
            if (m.Path.StartsWith("[vvar", StringComparison.Ordinal))
            {
                vvar.Add(new PrefaultRegion(m.Start, m.End - m.Start, m.Path));
            }
        }

        SeccompFilter.Install(refusePopulate: true);
        Console.WriteLine($"kernelChecked={SafeTouch.IsKernelChecked}");
        Console.WriteLine($"populate={PopulateSupport.IsSupported(out _)}");
        PrefaultOptions Options(IProgress<PrefaultProgress>? progress) => new()
        {
            Strategy = PrefaultStrategy.Touch,
            RamGate = RamGate.Always,
            ChunkSize = 64 * 1024, // many chunks: the sweep goes on well past the unmapping
            MaxDegreeOfParallelism = 1, // the first report comes after the first chunk, on the sweeping thread
            Progress = progress,
        };
        PrefaultOptions options = Options(null);

        int failed = 0;
        int unmapped = 0;
        PrefaultMethod method = PrefaultMethod.None;
        if (what == "vvar")
        {
            Console.WriteLine($"vvarMappings={vvar.Count}");
            PrefaultResult result = MmapPrefault.Run(vvar, options);
            failed = result.Failures.Count > 0 ? 1 : 0;
            method = result.Method;
            Console.WriteLine($"failure={(result.Failures.Count > 0 ? result.Failures[0].Message : string.Empty)}");
        }
        else
        {
            const long Length = 16 * 1024 * 1024;
            for (int i = 0; i < iterations; i++)
            {
                nint address = NativeTestMethods.MapAnonymous(Length);
                var unmap = new UnmapOnFirstReport(address, Length);
                PrefaultResult result = MmapPrefault.Run([new PrefaultRegion(address, Length, "engine buffer")], Options(unmap));
                failed += result.Failures.Count > 0 ? 1 : 0;
                unmapped += unmap.Count;
                method = result.Method;
                if (i == 0 && result.Failures.Count > 0)
                {
                    Console.WriteLine($"failure={result.Failures[0].Message}");
                }

                if (unmap.Count == 0)
                {
                    NativeTestMethods.Unmap(address, Length);
                }
            }
        }

        Console.WriteLine($"method={method}");
        Console.WriteLine($"runsWithFailures={failed}");
        Console.WriteLine($"unmappedWhileRunning={unmapped}");
        Console.WriteLine("done");
        return 0;
    }

    /// <summary>
    /// Under a seccomp filter that refuses memfd_create, chooses the mechanism for a cold mapping of
    /// <paramref name="path"/> as a host that faults pages in would (a populate with the touch after it), and sweeps it
    /// with every span read whole: the touch falls back to process_vm_readv, says so, and still reads every page.
    /// </summary>
    private static int TouchWithoutMemfd(string path)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        using MappedFile map = MappedFile.ReadOnly(path);
        SeccompFilter.InstallRefusingMemfdCreate();
        Console.WriteLine($"mappingTouch={MappingTouch.IsAvailable}");
        Console.WriteLine($"refusal={MappingTouch.Refusal}");

        var log = new ListLogger();
        PrefaultPlan plan = PrefaultPlan.Measure(RegionSet.Merge([map.Region()]), []);
        using SweepMechanism mechanism = SweepMechanism.Choose(plan, PrefaultOptions.Default, log, SweepThreads.ForRun(PrefaultOptions.Default), reporting: true, cpuSaysHypervisor: true);
        Console.WriteLine($"touchesAfterPopulate={mechanism.TouchesAfterPopulate}");
        Console.WriteLine($"throughMapping={mechanism.ThroughMapping is not null}");
        Console.WriteLine($"description={mechanism.Describe()}");
        Console.WriteLine($"loggedFallback={log.EventIds.Contains(17)}");

        var chunks = new ChunkSweep(plan.Ranges, mechanism) { SlowPageNanoseconds = 0 };
        long swept = chunks.SweepChunk(0, plan.Ranges[0].Start, plan.Ranges[0].End);
        Console.WriteLine($"swept={swept}");
        Console.WriteLine($"spansTouched={chunks.SpansTouched}");
        Console.WriteLine("done");
        return 0;
    }

    /// <summary>
    /// Counts the residency of a file this process may write, cached whole and not mapped here, under a seccomp filter
    /// that refuses cachestat with EPERM: the filter's EPERM must not read as the kernel hiding the file's cache. Then,
    /// where <paramref name="hidden"/> is given (a cold file this process may not write), counts that one too: with
    /// cachestat given up, mincore answers "resident" for all of it, which must still be corrected.
    /// </summary>
    private static unsafe int ResidencyWithoutCachestat(string path, string? hidden)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        _ = File.ReadAllBytes(path); // the whole file in the page cache, none of it mapped here
        SeccompFilter.InstallRefusingCachestat();
        using (Microsoft.Win32.SafeHandles.SafeFileHandle handle = File.OpenHandle(path))
        {
            global::Interop.Libc.CachestatRange range = new() { Offset = 0, Length = (ulong)Environment.SystemPageSize };
            global::Interop.Libc.Cachestat stat;
            bool refused = global::Interop.Libc.SyscallCachestat(global::Interop.Libc.SYS_cachestat, handle, &range, &stat, 0) != 0
                && System.Runtime.InteropServices.Marshal.GetLastPInvokeError() == global::Interop.LinuxConstants.EPERM;
            Console.WriteLine($"cachestatRefused={refused}");
        }

        using MappedModel model = MappedModel.OpenFile(path);
        ResidencyInfo residency = Residency.Measure(model.FileRegion(path));
        Console.WriteLine($"total={residency.Bytes}");
        Console.WriteLine($"resident={residency.ResidentBytes}");
        Console.WriteLine($"unknown={residency.UnknownBytes}");
        if (hidden is not null)
        {
            using MappedModel other = MappedModel.OpenFile(hidden);
            ResidencyInfo hiddenResidency = Residency.Measure(other.FileRegion(hidden));
            Console.WriteLine($"hiddenResident={hiddenResidency.ResidentBytes}");
            Console.WriteLine($"hiddenUnknown={hiddenResidency.UnknownBytes}");
        }

        Console.WriteLine("done");
        return 0;
    }

    /// <summary>
    /// A caller's callback that throws on the library's own thread: "start-logger", a logger that throws at every line,
    /// given to <see cref="MmapPrefault.Start(PrefaultRegion[], PrefaultOptions?, CancellationToken)"/>; "warm-progress",
    /// a progress that throws at every report, given to <see cref="PageCache.WarmAsync"/>. An exception that leaves the
    /// library's thread ends this process (exit 134) before it prints <c>done</c>.
    /// </summary>
    private static int ThrowingCallback(string what, string path)
    {
        if (what == "start-logger")
        {
            using MappedModel model = MappedModel.OpenFile(path);
            using PrefaultHandle handle = MmapPrefault.Start([model.FileRegion(path)], new PrefaultOptions { Logger = new ThrowingLogger() });
            PrefaultResult result = handle.Completion.GetAwaiter().GetResult();
            Console.WriteLine($"ran={result.HasRun}");
            Console.WriteLine($"reason={result.Reason}");
        }
        else
        {
            PageCacheWarmResult result = PageCache.WarmAsync(path, new ThrowingProgress()).AsTask().GetAwaiter().GetResult();
            Console.WriteLine($"warmBytes={result.BytesRead}");
            Console.WriteLine($"warmComplete={result.IsComplete}");
        }

        Console.WriteLine("done");
        return 0;
    }

    private sealed class ThrowingProgress : IProgress<long>
    {
        public void Report(long value) => throw new InvalidOperationException("the progress bar failed");
    }

    /// <summary>Unmaps the region at the run's first progress report, on the sweeping thread.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private sealed class UnmapOnFirstReport(nint address, long length) : IProgress<PrefaultProgress>
    {
        public int Count { get; private set; }

        public void Report(PrefaultProgress value)
        {
            if (Count == 0 && value.BytesDone < value.BytesTotal)
            {
                NativeTestMethods.Unmap(address, length);
                Count++;
            }
        }
    }

    /// <summary>Truncates the file at the run's first progress report, on the reporting thread, while the sweep's other threads go on.</summary>
    private sealed class TruncateOnFirstReport(FileStream stream) : IProgress<PrefaultProgress>
    {
        private long _length = -1;

        public int Count { get; private set; }

        public void Arm(long length) => _length = length;

        public void Report(PrefaultProgress value)
        {
            if (_length >= 0 && value.BytesDone < value.BytesTotal)
            {
                stream.SetLength(_length);
                _length = -1;
                Count++;
            }
        }
    }

    /// <summary>Locks <paramref name="count"/> one-page regions two pages apart of a mapping of <paramref name="path"/>: each lock splits the mapping.</summary>
    private static int LockSplitPages(string path, int count)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        long page = Environment.SystemPageSize;
        using NativeMmap map = NativeMmap.Map(path, 0, 2 * count * page);
        var regions = new PrefaultRegion[count];
        for (int i = 0; i < count; i++)
        {
            regions[i] = new PrefaultRegion(map.Address + (nint)(2 * i * page), page, $"r{i}");
        }

        using (LockLease lease = MmapLock.Lock(regions, new LockOptions { RamGate = RamGate.Always }))
        {
            Console.WriteLine($"locked={lease.LockedBytes / page}");
            Console.WriteLine($"failures={lease.Failures.Count}");
            Console.WriteLine($"mappings={MappingRoom.CountSelfMappings()}");
            if (lease.Failures.Count > 0)
            {
                Console.WriteLine($"failure={lease.Failures[^1].Name}: {lease.Failures[^1].Message}");
            }
        }

        Console.WriteLine($"lockedAfterDispose={ProcessStatus.ReadStatusBytes("VmLck")}");
        Console.WriteLine("done");
        return 0;
    }

    /// <summary>
    /// In the pids cgroup <paramref name="group"/> (which this process joined before the runtime started): sets its
    /// pids.max to the threads there are now, so not one more can start, then (<paramref name="what"/>) prefaults
    /// <paramref name="path"/> in the background, or reads it with a DirectFileReader, sync and async, as an engine would.
    /// </summary>
    private static int NoThreadsLeft(string group, string path, string what)
    {
        using MappedModel model = MappedModel.OpenFile(path);
        PrefaultRegion region = model.FileRegion(path);
        byte[] buffer = new byte[(int)model.Length];
        var options = new DirectReadOptions { BlockSize = 64 * 1024, MaxReadsInFlight = 4 };

        Console.WriteLine($"length={model.Length}"); // the console starts its own thread on first use: before the freeze
        File.WriteAllText(Path.Combine(group, "pids.max"), File.ReadAllText(Path.Combine(group, "pids.current")).Trim());
        Console.WriteLine($"threadStartRefused={!CanStartAThread()}");
        if (what == "warm-one")
        {
            // Room for one more thread: the first of the warm-up's threads starts, the others are refused.
            int current = int.Parse(File.ReadAllText(Path.Combine(group, "pids.current")).Trim(), CultureInfo.InvariantCulture);
            File.WriteAllText(Path.Combine(group, "pids.max"), (current + 1).ToString(CultureInfo.InvariantCulture));
        }

        if (what is "warm" or "warm-one")
        {
            Task<PageCacheWarmResult> warm = PageCache.WarmAsync(path).AsTask();
            bool completed = warm.Wait(TimeSpan.FromSeconds(30));
            Console.WriteLine($"warmCompleted={completed}");
            if (completed)
            {
                Console.WriteLine($"warmBytes={warm.Result.BytesRead}");
                Console.WriteLine($"warmError={warm.Result.Error}");
            }
        }
        else if (what == "start")
        {
            using PrefaultHandle handle = MmapPrefault.Start([region], new PrefaultOptions { RamGate = RamGate.Always });
            PrefaultResult result = handle.Completion.GetAwaiter().GetResult();
            Console.WriteLine($"startRan={result.HasRun}");
            Console.WriteLine($"startBytes={result.Bytes}");
        }
        else
        {
            using DirectFileReader reader = DirectFileReader.Open(path, options);
            Console.WriteLine($"readBytes={reader.Read(0, buffer)}");
            Console.WriteLine($"readMatches={buffer.AsSpan().SequenceEqual(File.ReadAllBytes(path))}");
            Array.Clear(buffer);
            Console.WriteLine($"readAsyncBytes={reader.ReadAsync(0, buffer).AsTask().GetAwaiter().GetResult()}");
            Console.WriteLine($"readAsyncMatches={buffer.AsSpan().SequenceEqual(File.ReadAllBytes(path))}");
        }

        Console.WriteLine("done");
        return 0;
    }

    /// <summary>
    /// An engine's first <see cref="MmapPrefault.Run(PrefaultRegion[], PrefaultOptions?, CancellationToken)"/> over
    /// <paramref name="path"/>, nothing of the metrics API touched before it: prints whether System.Diagnostics.DiagnosticSource
    /// was loaded before and after it, then starts a <see cref="System.Diagnostics.Metrics.MeterListener"/> (which
    /// is shown every instrument that exists) and runs again, printing the Sharpi.Prefault instruments the listener was
    /// shown for the first run and the runs it counted for the second.
    /// </summary>
    /// <summary>
    /// Runs <see cref="MmapPrefault.Run(IReadOnlyList{PrefaultRegion}, PrefaultOptions?, CancellationToken)"/> at its
    /// default (normal) priority over <paramref name="path"/> on 2 threads in 1 MiB chunks, and prints the nice values
    /// read at each progress report: the calling thread's (<c>caller=0,0,...</c>), which sweeps too, and every other
    /// sweep thread's (<c>helpers=0,...</c>).
    /// </summary>
    private static int NicesDuringRun(string path)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        using MappedFile map = MappedFile.ReadOnly(path);
        var caller = new List<int>();
        var helpers = new List<int>();
        var progress = new CallbackProgress(_ =>
        {
            caller.Add(ThreadNices.Of("thread-self") ?? -1);
            helpers.AddRange(ThreadNices.OfSweepThreads());
        });

        MmapPrefault.Run([map.Region()], new PrefaultOptions { Progress = progress, ChunkSize = 1L << 20, MaxDegreeOfParallelism = 2 });
        Console.WriteLine($"caller={string.Join(',', caller)}");
        Console.WriteLine($"helpers={string.Join(',', helpers)}");
        Console.WriteLine("done");
        return 0;
    }

    /// <summary>
    /// Reads <paramref name="warmUp"/> (so the parse's code is compiled), resets the peak RSS (clear_refs 5), reads
    /// <paramref name="path"/>, and prints the peak's growth over the RSS before the parse.
    /// </summary>
    private static int HeaderParsePeak(string path, string warmUp)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        TensorIndex.Read(warmUp);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        File.WriteAllText("/proc/self/clear_refs", "5");
        long before = StatusBytes("VmRSS:");
        TensorIndex index = TensorIndex.Read(path);
        long peak = StatusBytes("VmHWM:");
        Console.WriteLine($"tensors={index.Tensors.Count}");
        Console.WriteLine($"growth={peak - before}");
        Console.WriteLine("done");
        GC.KeepAlive(index);
        return 0;

        static long StatusBytes(string field)
        {
            foreach (string line in File.ReadLines("/proc/self/status"))
            {
                if (line.StartsWith(field, StringComparison.Ordinal))
                {
                    return long.Parse(line[field.Length..].Trim().Split(' ')[0], CultureInfo.InvariantCulture) * 1024;
                }
            }

            return -1;
        }
    }

    private static int FirstRunMetrics(string path)
    {
        if (!OperatingSystem.IsLinux())
        {
            return 2;
        }

        long length = new FileInfo(path).Length;
        using NativeMmap map = NativeMmap.Map(path, 0, length);
        PrefaultRegion[] regions = [new PrefaultRegion(map.Address, length, "weights")];
        Console.WriteLine($"metricsLoadedBeforeRun={MetricsAssemblyLoaded()}");
        MmapPrefault.Run(regions);
        Console.WriteLine($"metricsLoadedAfterRun={MetricsAssemblyLoaded()}");
        ListenThenRunAgain(regions);
        Console.WriteLine("done");
        return 0;
    }

    private static bool MetricsAssemblyLoaded() =>
        AppDomain.CurrentDomain.GetAssemblies().Any(a => a.GetName().Name == "System.Diagnostics.DiagnosticSource");

    // Apart, and never inlined: compiling a method that names MeterListener loads the assembly under test.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static void ListenThenRunAgain(PrefaultRegion[] regions)
    {
        int instruments = 0;
        long runs = 0;
        using var listener = new System.Diagnostics.Metrics.MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == "Sharpi.Prefault")
            {
                instruments++;
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, _, _) =>
        {
            if (instrument.Name == "sharpi.prefault.runs")
            {
                runs += value;
            }
        });
        listener.Start();
        Console.WriteLine($"instrumentsAfterFirstRun={instruments}");
        MmapPrefault.Run(regions);
        Console.WriteLine($"runsCountedOnSecondRun={runs}");
    }

    private static bool CanStartAThread()
    {
        try
        {
            var thread = new Thread(() => { });
            thread.Start();
            thread.Join();
            return true;
        }
        catch (OutOfMemoryException)
        {
            return false;
        }
    }
}

/// <summary>The cases <see cref="ChildProgram"/> runs.</summary>
internal static class ChildCases
{
    public const string HeaderParsePeak = "header-parse-peak";
    public const string LockSplitPages = "lock-split-pages";
    public const string LockUnderMlockall = "lock-under-mlockall";
    public const string NoThreadsLeft = "no-threads-left";
    public const string StageAtMapLimit = "stage-at-map-limit";
    public const string MeasureAndRun = "measure-and-run";
    public const string MeasureBesideAnonymous = "measure-beside-anonymous";
    public const string TouchUnderSeccomp = "touch-under-seccomp";
    public const string TouchAnonymousUnderSeccomp = "touch-anonymous-under-seccomp";
    public const string TouchWithoutMemfd = "touch-without-memfd";
    public const string ThrowingCallback = "throwing-callback";
    public const string FirstRunMetrics = "first-run-metrics";
    public const string NicesDuringRun = "nices-during-run";
    public const string ResidencyWithoutCachestat = "residency-without-cachestat";
}
