using Sharpi.Prefault.Tests.Mappings;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>The child cases about the mapping limit and the mapping figures (vm.max_map_count, staging views, measuring beside other mappings).</summary>
internal static partial class ChildProgram
{
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
        WriteResidency("measure", measured);
        Console.WriteLine($"measureError={measured.Error}");
        WriteResidency("ofFile", Residency.OfFile(path));
        PrefaultResult result = MmapPrefault.Run([whole], new PrefaultOptions { RamGate = RamGate.Always });
        Console.WriteLine($"runBytes={result.Bytes}");
        Console.WriteLine($"runAlreadyResident={result.BytesAlreadyResident}");
        Console.WriteLine($"runAlreadyResidentUnknown={result.BytesAlreadyResidentUnknown}");
        Console.WriteLine($"runResident={result.BytesResident}");
        Console.WriteLine($"runResidentUnknown={result.BytesResidentUnknown}");
        Console.WriteLine($"runReason={result.Reason}");
        WriteResidency("after", Residency.Measure(whole));
        Console.WriteLine("done");
        return 0;
    }

    /// <summary>Writes what <paramref name="info"/> counts resident and unknown as <c>{prefix}Resident=</c> and <c>{prefix}Unknown=</c> lines.</summary>
    private static void WriteResidency(string prefix, ResidencyInfo info)
    {
        Console.WriteLine($"{prefix}Resident={info.ResidentBytes}");
        Console.WriteLine($"{prefix}Unknown={info.UnknownBytes}");
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
}
