using System.Runtime.InteropServices;

namespace Sharpi.Prefault;

/// <summary>Errno to text, for logs and results.</summary>
internal static class Errno
{
    internal static string Describe(int errno) => $"errno {errno} ({Marshal.GetPInvokeErrorMessage(errno)})";
}

/// <summary>An errno that turns into text only when a log message is actually written.</summary>
internal readonly record struct ErrnoText(int Value)
{
    public override string ToString() => Errno.Describe(Value);
}
