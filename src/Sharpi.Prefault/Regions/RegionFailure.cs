namespace Sharpi.Prefault;

/// <summary>A region, or part of one, that an operation (prefault, reclaim, lock) could not cover, and why.</summary>
/// <param name="Name">The region's name (or its address in hex when it has none).</param>
/// <param name="Address">Start of the part that failed.</param>
/// <param name="Length">Bytes of the part that failed.</param>
/// <param name="Error">
/// The system call that failed, with its errno or Win32 code; <see cref="PlatformError.None"/> when the failure was
/// found without one (the RAM gate's budget, a range past its file's end in /proc/self/maps, a copy-on-write view).
/// </param>
/// <param name="Message">What went wrong and what to do, with the OS's text for the error.</param>
public sealed record RegionFailure(string Name, nint Address, long Length, PlatformError Error, string Message);
