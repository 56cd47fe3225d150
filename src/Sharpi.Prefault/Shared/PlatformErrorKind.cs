namespace Sharpi.Prefault;

// Which numbering a PlatformError's code belongs to: the same number means different errors on Unix and Windows.
internal enum PlatformErrorKind
{
    // No system call failed (PlatformError.None): the failure was found without one, or there was none.
    None = 0,

    // A Unix errno (Linux or macOS: the values differ between them, so the code is the running platform's).
    Errno = 1,

    // A Win32 error code, from GetLastError (Windows).
    Win32 = 2,
}
