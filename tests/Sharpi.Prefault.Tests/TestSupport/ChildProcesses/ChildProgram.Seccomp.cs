namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>The child cases about seccomp filters (refused populate, memfd_create, cachestat) and races under them.</summary>
internal static partial class ChildProgram
{
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
        FirstAccessProbe.Override.Value = new FirstAccessProbe.Costs(0, 0, 0); // a machine where the kernel's touch pays: the static rule samples
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
}
