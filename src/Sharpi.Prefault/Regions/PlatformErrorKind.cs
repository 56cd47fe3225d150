namespace Sharpi.Prefault;

/// <summary>Which numbering a <see cref="PlatformError"/>'s code belongs to: the same number means different errors on Unix and Windows.</summary>
public enum PlatformErrorKind
{
    /// <summary>No system call failed (<see cref="PlatformError.None"/>): the failure was found without one, or there was none.</summary>
    None = 0,

    /// <summary>A Unix errno (Linux or macOS: the values differ between them, so the code is the running platform's).</summary>
    Errno = 1,

    /// <summary>A Win32 error code, from GetLastError (Windows).</summary>
    Win32 = 2,
}
