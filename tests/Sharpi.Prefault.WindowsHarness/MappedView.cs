using System.Runtime.InteropServices;

namespace Sharpi.Prefault.WindowsHarness;

/// <summary>A whole file mapped read-only through the library (<see cref="MappedModel.OpenFile"/>), as an engine maps its weights, and the region it covers.</summary>
internal sealed class MappedView : IDisposable
{
    private readonly MappedModel _model;

    private MappedView(MappedModel model)
    {
        _model = model;
        Region = model.FileRegion(model.Path) with { Name = Path.GetFileName(model.Path) };
    }

    internal PrefaultRegion Region { get; }

    internal static MappedView Open(string path) => new(MappedModel.OpenFile(path));

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
            sum += Marshal.ReadByte(Region.Address + (nint)at);
        }

        GC.KeepAlive(sum);
    }

    public void Dispose() => _model.Dispose();
}
