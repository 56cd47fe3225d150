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

    /// <summary>
    /// The system call that failed, with its errno or Win32 code; <see cref="PlatformError.None"/> when the failure was
    /// found without one (the RAM gate's budget, a range past its file's end in /proc/self/maps, a copy-on-write view).
    /// </summary>
    public PlatformError Error { get; }

    /// <summary>What went wrong and what to do, with the OS's text for the error.</summary>
    public string Message { get; }
}
