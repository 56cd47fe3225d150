using System.IO.MemoryMappedFiles;

namespace Sharpi.Prefault.WindowsHarness;

/// <summary>A read-only view of a whole file, as an engine maps its weights, and the region it covers.</summary>
internal sealed class MappedView : IDisposable
{
    private readonly MemoryMappedFile _map;
    private readonly MemoryMappedViewAccessor _accessor;

    private MappedView(MemoryMappedFile map, MemoryMappedViewAccessor accessor, PrefaultRegion region)
    {
        _map = map;
        _accessor = accessor;
        Region = region;
    }

    internal PrefaultRegion Region { get; }

    internal static MappedView Open(string path)
    {
        long length = new FileInfo(path).Length;
        MemoryMappedFile map = MemoryMappedFile.CreateFromFile(path, FileMode.Open, null, 0, MemoryMappedFileAccess.Read);
        MemoryMappedViewAccessor accessor = map.CreateViewAccessor(0, length, MemoryMappedFileAccess.Read);
        return new MappedView(map, accessor, PrefaultRegion.FromView(accessor, 0, length, Path.GetFileName(path)));
    }

    /// <summary>The region of a view that was mapped and is unmapped again: its addresses are free.</summary>
    internal static PrefaultRegion Unmapped(string path)
    {
        PrefaultRegion region;
        using (MappedView view = Open(path))
        {
            region = view.Region with { Name = "unmapped" };
        }

        return region;
    }

    /// <summary>Reads a byte of every page, as an engine's first pass would.</summary>
    internal void ReadEveryPage()
    {
        int sum = 0;
        for (long at = 0; at < Region.Length; at += Environment.SystemPageSize)
        {
            sum += _accessor.ReadByte(at);
        }

        GC.KeepAlive(sum);
    }

    public void Dispose()
    {
        _accessor.Dispose();
        _map.Dispose();
    }
}
