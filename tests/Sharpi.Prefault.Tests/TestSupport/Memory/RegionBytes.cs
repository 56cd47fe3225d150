namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>Bytes read through a region's address, and the file's own bytes at an offset, to compare the two.</summary>
public static class RegionBytes
{
    public static unsafe byte[] Of(PrefaultRegion region) =>
        new ReadOnlySpan<byte>((void*)region.Address, checked((int)region.Length)).ToArray();

    public static byte[] OfFile(string path, long offset, long length)
    {
        byte[] bytes = new byte[length];
        using var handle = File.OpenHandle(path);
        RandomAccess.Read(handle, bytes, offset);
        return bytes;
    }
}
