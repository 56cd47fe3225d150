namespace Sharpi.Prefault.WindowsHarness;

/// <summary>Real files with known, position-dependent bytes, so a read from the wrong offset shows.</summary>
internal static class TestFiles
{
    internal static string Create(string path, int length, int seed)
    {
        File.WriteAllBytes(path, Expected(length, seed));
        return path;
    }

    internal static byte[] Expected(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }
}
