using Sharpi.Prefault.Tests.Mappings;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// A prefault never allocates a file's holes: a read fault on a hole of a tmpfs file takes a page of the file system
/// (a 1 GiB sparse file filled a 600 MiB tmpfs until ENOSPC), so the plan leaves holes out (SEEK_DATA/SEEK_HOLE) on
/// every file system, the RAM gate counts data only, and a fault that ran out of space says so. On a small tmpfs
/// the test mounts and always unmounts.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class SparseFileTests
{
    private const long MiB = TestFile.MiB;

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Tmpfs))]
    [InlineData(PrefaultStrategy.Auto)]
    [InlineData(PrefaultStrategy.Touch)]
    public void Run_OfASparseFileOnASmallTmpfs_ReadsOnlyItsData_AndTakesNoSpace(PrefaultStrategy strategy)
    {
        using TmpfsMount tmpfs = TmpfsMount.Create(32 * MiB);
        string path = SparseFile(tmpfs.Path, 256 * MiB, (0, 1 * MiB), (100 * MiB, 3 * MiB));
        using NativeMmap map = NativeMmap.Map(path, 0, 256 * MiB, shared: true);
        long usedBefore = tmpfs.UsedBytes;

        PrefaultResult result = MmapPrefault.Run([new PrefaultRegion(map.Address, 256 * MiB, "sparse")], new PrefaultOptions { Strategy = strategy });

        Assert.Empty(result.Failures);
        Assert.Equal(4 * MiB, result.Bytes); // the data, nothing of the 252 MiB of holes
        Assert.InRange(tmpfs.UsedBytes - usedBefore, 0, MiB); // was: the tmpfs filled to its 32 MiB
        Assert.Contains("252.00 MiB of holes in sparse files left unread", result.Reason, StringComparison.Ordinal);
    }

    /// <summary>
    /// Two files shown under one path: a file mapped, then a tmpfs mounted over its folder and a sparse file of the same
    /// name mapped. The first cannot be opened again as itself (its path names the second now), which marked the path
    /// as having no hole, so the second's holes were faulted in until its tmpfs was full. Each file is asked by its
    /// path and inode.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Tmpfs))]
    public unsafe void Run_OfTwoFilesShownUnderOnePath_AsksEachForItsHoles()
    {
        using TmpfsMount below = TmpfsMount.Create(16 * MiB);
        string folder = Directory.CreateDirectory(Path.Combine(below.Path, "models")).FullName;
        string path = Path.Combine(folder, "model.bin");
        File.WriteAllBytes(path, new byte[MiB]);

        // One reservation holds both mappings, the first file's below the second's: the order of the maps matters.
        nint reserved = NativeTestMethods.Map(257 * MiB, 0, NativeTestMethods.MapPrivate | NativeTestMethods.MapAnonymousFlag);
        TmpfsMount? above = null;
        try
        {
            using (var first = File.OpenHandle(path))
            {
                NativeTestMethods.MapFileAt(reserved, first, MiB, NativeTestMethods.ProtRead, NativeTestMethods.MapShared);
            }

            above = TmpfsMount.CreateOver(folder, 32 * MiB);
            // Two more files first: the second file's inode number is not the first's.
            File.WriteAllText(Path.Combine(folder, "another"), "x");
            File.WriteAllText(Path.Combine(folder, "and another"), "x");
            SparseFile(folder, 256 * MiB, (0, MiB));
            string second = Directory.GetFiles(folder, "sparse-*").Single();
            File.Move(second, path);
            using (var handle = File.OpenHandle(path))
            {
                NativeTestMethods.MapFileAt(reserved + (nint)MiB, handle, 256 * MiB, NativeTestMethods.ProtRead, NativeTestMethods.MapShared);
            }

            ProcMapEntry[] maps = ProcMaps.ReadSelf().Where(m => m.Path == path).ToArray();
            Assert.Equal(2, maps.Length);
            Assert.NotEqual(maps[0].Inode, maps[1].Inode); // the case is real: two files, one path
            long usedBefore = above.UsedBytes;

            PrefaultResult result = MmapPrefault.Run([new PrefaultRegion(reserved, MiB, "first"), new PrefaultRegion(reserved + (nint)MiB, 256 * MiB, "second")],
                new PrefaultOptions { RamGate = RamGate.Always });

            Assert.Empty(result.Failures); // was: ENOSPC on the second's tmpfs, after filling it
            Assert.InRange(above.UsedBytes - usedBefore, 0, MiB);
            Assert.Contains("255.00 MiB of holes", result.Reason, StringComparison.Ordinal);
        }
        finally
        {
            NativeTestMethods.Unmap(reserved, 257 * MiB);
            above?.Dispose();
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Run_OfAnEvictedSparseFile_GatesOnItsDataBytes()
    {
        string folder = Directory.CreateTempSubdirectory("sharpi-sparse-").FullName;
        try
        {
            string path = SparseFile(folder, 256 * MiB, (0, MiB), (100 * MiB, 3 * MiB));
            PageCache.Evict(path);
            using NativeMmap map = NativeMmap.Map(path, 0, 256 * MiB);

            PrefaultResult result = MmapPrefault.Run([new PrefaultRegion(map.Address, 256 * MiB, "sparse")]);

            Assert.Contains("fits: 4.00 MiB to load", result.Reason, StringComparison.Ordinal); // was: 256.00 MiB to load
            Assert.Equal(4 * MiB, result.Bytes);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Measure_OfASparseFile_PlansItsDataPagesOnly()
    {
        string folder = Directory.CreateTempSubdirectory("sharpi-sparse-").FullName;
        try
        {
            long page = Environment.SystemPageSize;
            string path = SparseFile(folder, 64 * MiB, (10 * MiB, MiB), ((40 * MiB) + 100, 10)); // 10 bytes: one page of data
            using NativeMmap map = NativeMmap.Map(path, 0, 64 * MiB);

            PrefaultPlan plan = PrefaultPlan.Measure(RegionSet.Merge([new PrefaultRegion(map.Address + 100, (64 * MiB) - 200, "sparse")]), []);

            Assert.Equal([(map.Address + (nint)(10 * MiB), map.Address + (nint)(11 * MiB)), (map.Address + (nint)(40 * MiB), map.Address + (nint)((40 * MiB) + page))],
                plan.Ranges.Select(r => (r.Start, r.End)));
            Assert.Equal(MiB + page, plan.BytesPlanned);
            Assert.Equal((64 * MiB) - 200 - MiB - page, plan.BytesInHoles);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>
    /// A deleted file's holes cannot be found (no path opens it), so its populate faults them in until the tmpfs is
    /// full: the failure says so (it said "pages past the end of the mapped file (truncated?)").
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Tmpfs))]
    public void Run_OfADeletedSparseFileOnAFullTmpfs_SaysTheFileSystemIsFull()
    {
        using TmpfsMount tmpfs = TmpfsMount.Create(16 * MiB);
        string path = SparseFile(tmpfs.Path, 64 * MiB, (0, MiB));
        using NativeMmap map = NativeMmap.Map(path, 0, 64 * MiB, shared: true);
        File.Delete(path);
        tmpfs.Fill();

        PrefaultResult result = MmapPrefault.Run([new PrefaultRegion(map.Address, 64 * MiB, "deleted")], new PrefaultOptions { RamGate = RamGate.Always });

        RegionFailure failure = Assert.Single(result.Failures);
        Assert.Equal(MiB, result.Bytes);
        Assert.Contains($"no space left on the file system of '{tmpfs.Path}' (it is full)", failure.Message, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Tmpfs))]
    public void Describe_AFaultInsideAFileOnAFullTmpfs_SaysNoSpaceLeft_AndOnePastItsEnd_SaysPastTheEnd()
    {
        using TmpfsMount tmpfs = TmpfsMount.Create(16 * MiB);
        string path = SparseFile(tmpfs.Path, 4 * MiB, (0, MiB));
        using NativeMmap map = NativeMmap.Map(path, 0, 8 * MiB, shared: true);
        tmpfs.Fill();
        ProcMapEntry[] maps = ProcMaps.ReadSelf();
        var efault = PlatformError.FromErrno("madvise(MADV_POPULATE_READ)", global::Interop.LinuxConstants.EFAULT);

        string hole = SweepFailureText.Describe(efault, map.Address + (nint)(2 * MiB), maps);
        string pastTheEnd = SweepFailureText.Describe(efault, map.Address + (nint)(6 * MiB), maps);

        Assert.StartsWith($"no space left on the file system of '{path}' (it is full)", hole, StringComparison.Ordinal);
        Assert.StartsWith($"pages past the end of the mapped file (truncated?): '{path}' is 4,194,304 bytes now", pastTheEnd, StringComparison.Ordinal);
    }

    /// <summary>A file of <paramref name="length"/> bytes, all a hole but the <paramref name="data"/> ranges (offset, length) of random bytes.</summary>
    private static string SparseFile(string folder, long length, params (long Offset, long Length)[] data)
    {
        string path = Path.Combine(folder, $"sparse-{Guid.NewGuid():N}.bin");
        using var stream = new FileStream(path, FileMode.CreateNew, FileAccess.Write);
        stream.SetLength(length);
        foreach ((long offset, long bytes) in data)
        {
            byte[] buffer = new byte[bytes];
            Random.Shared.NextBytes(buffer);
            stream.Position = offset;
            stream.Write(buffer);
        }

        return path;
    }
}
