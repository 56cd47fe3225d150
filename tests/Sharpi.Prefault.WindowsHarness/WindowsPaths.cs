using System.Runtime.Versioning;

namespace Sharpi.Prefault.WindowsHarness;

/// <summary>The checks, one group per Windows path of the library; each check maps its own view of a real file.</summary>
[SupportedOSPlatform("windows")]
internal static class WindowsPaths
{
    private const long LockBytes = 1 << 20; // under the default working-set minimum's headroom on real Windows

    /// <summary>QueryWorkingSetEx (with VirtualQuery for the mapping check) through Residency.</summary>
    internal static void Residency(Checks checks, string path)
    {
        checks.Check("Residency.IsSupported on Windows", Sharpi.Prefault.Residency.IsSupported, "working set");

        checks.Run("Residency.OfFile says the file cache cannot be measured", () =>
        {
            ResidencyInfo info = Sharpi.Prefault.Residency.OfFile(path);
            return (!info.IsSupported && info.Error is { } e && e.Contains("working set", StringComparison.Ordinal), $"IsSupported={info.IsSupported}, Error={info.Error}");
        });

        using var view = MappedView.Open(path);
        checks.Run("Residency.Measure of a fresh mapping", () =>
        {
            ResidencyInfo info = Sharpi.Prefault.Residency.Measure(view.Region);
            return (info.IsSupported && info.Error is null && info.Bytes == view.Region.Length && info.ResidentBytes >= 0 && info.ResidentBytes <= info.Bytes,
                $"{info.ResidentBytes} of {info.Bytes} B in the working set, Error={info.Error ?? "none"}");
        });

        checks.Run("Residency.Measure after reading every page counts them all", () =>
        {
            view.ReadEveryPage();
            ResidencyInfo info = Sharpi.Prefault.Residency.Measure(view.Region);
            return (info.IsSupported && info.Error is null && info.ResidentBytes == info.Bytes, $"{info.ResidentBytes} of {info.Bytes} B, {info.Percent:F1}%");
        });

        checks.Run("Residency.Measure of an unaligned slice counts only its bytes", () =>
        {
            var slice = new PrefaultRegion(view.Region.Address + 100, 3 * Environment.SystemPageSize, "slice");
            ResidencyInfo info = Sharpi.Prefault.Residency.Measure(slice);
            return (info.Error is null && info.ResidentBytes == slice.Length, $"{info.ResidentBytes} of {slice.Length} B");
        });

        checks.Run("Residency.MeasureEach of two halves", () =>
        {
            long half = view.Region.Length / 2;
            PrefaultRegion[] halves = [new(view.Region.Address, half, "first"), new(view.Region.Address + (nint)half, view.Region.Length - half, "second")];
            ResidencyInfo[] each = Sharpi.Prefault.Residency.MeasureEach(halves);
            bool ok = each.Length == 2 && each[0].IsSupported && each[1].IsSupported && each[0].Error is null && each[1].Error is null
                && each[0].ResidentBytes + each[1].ResidentBytes == view.Region.Length;
            return (ok, string.Join(", ", each.Select(i => $"{i.ResidentBytes}/{i.Bytes} B")));
        });

        checks.Run("Residency.Measure across several QueryWorkingSetEx batches", () =>
        {
            // 40 MiB is 10,240 pages of 4 KiB: more than one batch of 8,192, with unaligned ends on both sides.
            string big = TestFiles.Create(Path.Combine(Path.GetDirectoryName(path)!, "batches.bin"), 40 << 20, seed: 5);
            using var bigView = MappedView.Open(big);
            bigView.ReadEveryPage();
            var inner = new PrefaultRegion(bigView.Region.Address + 1, bigView.Region.Length - 2, "inner");
            ResidencyInfo whole = Sharpi.Prefault.Residency.Measure(bigView.Region);
            ResidencyInfo part = Sharpi.Prefault.Residency.Measure(inner);
            bool ok = whole.Error is null && whole.ResidentBytes == whole.Bytes && part.Error is null && part.ResidentBytes == inner.Length;
            return (ok, $"{whole.ResidentBytes} of {whole.Bytes} B, inner {part.ResidentBytes} of {inner.Length} B");
        });

        checks.Run("Residency.Measure of an unmapped range names a Win32 error", () =>
        {
            PrefaultRegion gone = MappedView.Unmapped(path);
            ResidencyInfo info = Sharpi.Prefault.Residency.Measure(gone);
            bool ok = info.Error is { } e && e.Contains("Win32 error 487", StringComparison.Ordinal) && !e.Contains("errno", StringComparison.Ordinal);
            return (ok, $"Error={info.Error}");
        });
    }

    /// <summary>VirtualQuery, PrefetchVirtualMemory and the touch sweep through MmapPrefault.Run, one fresh mapping per strategy.</summary>
    internal static void Prefault(Checks checks, string path)
    {
        foreach ((PrefaultStrategy strategy, PrefaultMethod method) in new[]
        {
            (PrefaultStrategy.Touch, PrefaultMethod.Touch),
            (PrefaultStrategy.Auto, PrefaultMethod.Touch), // no populate off Linux: Auto is hint + touch
            (PrefaultStrategy.HintOnly, PrefaultMethod.Hint),
        })
        {
            checks.Run($"MmapPrefault.Run Strategy={strategy}", () =>
            {
                using var view = MappedView.Open(path);
                PrefaultResult result = MmapPrefault.Run([view.Region], Options(strategy));
                ResidencyInfo after = Sharpi.Prefault.Residency.Measure(view.Region);
                bool resident = method == PrefaultMethod.Hint || after.ResidentBytes == after.Bytes;
                bool ok = result.HasRun && result.Method == method && result.Failures.Count == 0 && result.Bytes == view.Region.Length && resident;
                return (ok, $"HasRun={result.HasRun}, Method={result.Method}, Bytes={result.Bytes}, Failures={Describe(result.Failures)}, " +
                    $"working set after {after.Percent:F1}%, BytesResident={result.BytesResident}, Reason={result.Reason}");
            });
        }

        checks.Run("MmapPrefault.Run with a cancelled token (its last parameter) sweeps nothing and says so", () =>
        {
            using var view = MappedView.Open(path);
            PrefaultResult result = MmapPrefault.Run([view.Region], Options(PrefaultStrategy.Touch), new CancellationToken(canceled: true));
            return (result.IsCanceled && result.Bytes == 0, $"IsCanceled={result.IsCanceled}, Bytes={result.Bytes}, Reason={result.Reason}");
        });
    }

    /// <summary>
    /// Every region unmapped: the VirtualQuery check filters them all out, and PrefetchVirtualMemory must then not be
    /// called with 0 entries (it answers ERROR_INVALID_PARAMETER, 87, which would read as a failure of the run).
    /// </summary>
    internal static void PrefaultOfUnmappedRegions(Checks checks)
    {
        checks.Run("MmapPrefault.Run over unmapped regions reports only them, no prefetch of 0 entries", () =>
        {
            string path = TestFiles.Create(Path.Combine(Path.GetTempPath(), $"sharpi-winharness-gone-{Environment.ProcessId}.bin"), 1 << 20, seed: 3);
            try
            {
                PrefaultRegion[] gone = [MappedView.Unmapped(path), MappedView.Unmapped(path)];
                PrefaultResult result = MmapPrefault.Run(gone, Options(PrefaultStrategy.Touch));
                bool noPrefetch = result.Failures.All(f => !f.Message.Contains("PrefetchVirtualMemory", StringComparison.Ordinal) && f.Error.Call != "PrefetchVirtualMemory");
                bool onlyTheRegions = result.Failures.Count > 0 && result.Failures.All(f => f.Message.Contains("VirtualQuery", StringComparison.Ordinal));
                bool noErrno = result.Failures.All(f => !f.Error.ToString().Contains("errno", StringComparison.Ordinal));
                return (noPrefetch && onlyTheRegions && noErrno && result.Bytes == 0, $"Bytes={result.Bytes}, Failures={Describe(result.Failures)}");
            }
            finally
            {
                File.Delete(path);
            }
        });

        checks.Run("MmapPrefault.Run over a mapped and an unmapped region touches the mapped one", () =>
        {
            string path = TestFiles.Create(Path.Combine(Path.GetTempPath(), $"sharpi-winharness-mixed-{Environment.ProcessId}.bin"), 1 << 20, seed: 4);
            try
            {
                using var view = MappedView.Open(path);
                PrefaultResult result = MmapPrefault.Run([view.Region, MappedView.Unmapped(path)], Options(PrefaultStrategy.Touch));
                bool ok = result.Bytes == view.Region.Length && result.Failures.Count == 1 && result.Failures[0].Message.Contains("VirtualQuery", StringComparison.Ordinal);
                return (ok, $"Bytes={result.Bytes}, Failures={Describe(result.Failures)}");
            }
            finally
            {
                File.Delete(path);
            }
        });
    }

    /// <summary>VirtualLock / VirtualUnlock through MmapLock and its lease.</summary>
    internal static void Lock(Checks checks, string path)
    {
        checks.Run("MmapLock.Lock locks a mapped range, Dispose unlocks it", () =>
        {
            using var view = MappedView.Open(path);
            var region = new PrefaultRegion(view.Region.Address, LockBytes, "locked");
            LockLease lease = MmapLock.Lock([region]);
            bool locked = lease.IsFullyLocked && lease.LockedBytes == LockBytes && lease.RequestedBytes == LockBytes;
            string detail = $"LockedBytes={lease.LockedBytes}, Failures={Describe(lease.Failures)}";
            lease.Dispose();
            lease.Dispose(); // twice is a no-op
            return (locked && lease.IsDisposed, detail);
        });

        checks.Run("MmapLock.Lock of an unmapped range fails softly, naming VirtualLock and a Win32 error", () =>
        {
            using LockLease lease = MmapLock.Lock([MappedView.Unmapped(path)]);
            bool named = lease.Failures.Count == 1 && lease.Failures[0].Message.Contains("Win32 error", StringComparison.Ordinal)
                && !lease.Failures[0].Message.Contains("errno", StringComparison.Ordinal)
                && lease.Failures[0].Error is { Call: "VirtualLock", Code: not 0 } && lease.Failures[0].Error.ToString().Contains("Win32 error", StringComparison.Ordinal);
            return (!lease.IsFullyLocked && lease.LockedBytes == 0 && named, $"Failures={Describe(lease.Failures)}");
        });
    }

    /// <summary>CreateFileW with FILE_FLAG_NO_BUFFERING through DirectFileReader, compared byte for byte.</summary>
    internal static void DirectRead(Checks checks, string path)
    {
        byte[] expected = File.ReadAllBytes(path);
        using DirectFileReader reader = DirectFileReader.Open(path, new DirectReadOptions { BlockSize = 1 << 20 });
        checks.Check("DirectFileReader.Open uses unbuffered I/O", reader.Mode == DirectReadMode.Direct, $"Mode={reader.Mode}, FallbackReason={reader.FallbackReason ?? "none"}");
        checks.Check("DirectFileReader.Length", reader.Length == expected.Length, $"{reader.Length} B");

        checks.Run("DirectFileReader.Read of the whole file matches", () =>
        {
            var buffer = new byte[expected.Length];
            int read = reader.Read(0, buffer);
            return (read == expected.Length && buffer.AsSpan().SequenceEqual(expected), $"{read} B");
        });

        checks.Run("DirectFileReader.Read at an unaligned offset matches", () =>
        {
            const int Offset = 12345, Length = 100_000;
            var buffer = new byte[Length];
            int read = reader.Read(Offset, buffer);
            return (read == Length && buffer.AsSpan().SequenceEqual(expected.AsSpan(Offset, Length)), $"{read} B at {Offset}");
        });

        checks.Run("DirectFileReader.Read past the end stops at the end", () =>
        {
            var buffer = new byte[64 * 1024];
            int offset = expected.Length - 1000;
            int read = reader.Read(offset, buffer);
            return (read == 1000 && buffer.AsSpan(0, read).SequenceEqual(expected.AsSpan(offset)), $"{read} B");
        });

        checks.Run("DirectFileReader.ReadAsync matches", () =>
        {
            var buffer = new byte[expected.Length];
            int read = reader.ReadAsync(0, buffer).AsTask().GetAwaiter().GetResult();
            return (read == expected.Length && buffer.AsSpan().SequenceEqual(expected), $"{read} B");
        });

        DirectReadStatistics stats = reader.Statistics;
        checks.Check("DirectFileReader.Statistics count direct bytes", stats.DirectBytesRead > 0 && stats.Alignment > 0,
            $"Mode={stats.Mode}, DirectBytesRead={stats.DirectBytesRead}, Alignment={stats.Alignment}, Reads={stats.Reads}");
    }

    private static PrefaultOptions Options(PrefaultStrategy strategy) => new() { Strategy = strategy, RamGate = RamGate.Always, Label = "winharness" };

    private static string Describe(IReadOnlyList<RegionFailure> failures) =>
        failures.Count == 0 ? "none" : string.Join("; ", failures.Select(f => $"[{f.Name}: {f.Error}: {f.Message}]"));
}
