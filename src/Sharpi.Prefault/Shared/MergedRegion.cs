namespace Sharpi.Prefault;

/// <summary>A merged byte range, the name it is reported under, and its place in the caller's order.</summary>
internal readonly record struct MergedRegion(nint Start, nint End, string? Name, int Order)
{
    internal long Length => End - Start;

    internal string DisplayName => Name ?? $"0x{Start:X}";
}
