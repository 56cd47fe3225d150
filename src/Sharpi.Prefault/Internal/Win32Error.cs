using System.Runtime.InteropServices;

namespace Sharpi.Prefault;

/// <summary>
/// A Win32 error code (GetLastError) to text, for logs and results: "Win32 error 87 (The parameter is incorrect.)".
/// The Windows counterpart of <see cref="Errno"/>: the numbers are not errno values and must not be named so.
/// </summary>
internal static class Win32Error
{
    internal static string Describe(int error) => $"Win32 error {error} ({Marshal.GetPInvokeErrorMessage(error)})";
}
