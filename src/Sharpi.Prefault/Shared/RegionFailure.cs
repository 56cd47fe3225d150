namespace Sharpi.Prefault;

/// <summary>A region, or part of one, that an operation (prefault, reclaim, lock) could not cover, and why.</summary>
public sealed class RegionFailure
{
    internal RegionFailure(string name, nint address, long length, PlatformError error, string message)
    {
        Name = name;
        Address = address;
        Length = length;
        Error = error;
        Message = message;
    }

    /// <summary>The region's name (or its address in hex when it has none).</summary>
    public string Name { get; }

    /// <summary>Start of the part that failed.</summary>
    public nint Address { get; }

    /// <summary>Bytes of the part that failed.</summary>
    public long Length { get; }

    /// <summary>The system call that failed and its error; <see cref="PlatformError.None"/> where no call failed (the RAM budget, say).</summary>
    public PlatformError Error { get; }

    /// <summary>What went wrong and what to do, with the OS's text for the error.</summary>
    public string Message { get; }
}
