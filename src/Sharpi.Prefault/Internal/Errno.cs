using System.Runtime.InteropServices;

namespace Sharpi.Prefault;

/// <summary>Errno to text, for logs and results.</summary>
internal static class Errno
{
    internal static string Describe(int errno) => $"errno {errno} ({Marshal.GetPInvokeErrorMessage(errno)})";
}
