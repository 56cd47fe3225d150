namespace Sharpi.Prefault;

/// <summary>A region, or part of one, that an operation (prefault, reclaim, lock) could not cover, and why.</summary>
/// <param name="Name">The region's name (or its address in hex when it has none).</param>
/// <param name="Address">Start of the part that failed.</param>
/// <param name="Length">Bytes of the part that failed.</param>
/// <param name="Errno">The OS error number, 0 when the failure was found without a system call.</param>
/// <param name="Message">What went wrong, with the OS's text for the error.</param>
public sealed record RegionFailure(string Name, nint Address, long Length, int Errno, string Message);
