using System.Diagnostics.CodeAnalysis;

namespace Sharpi.Prefault;

internal static partial class ThrowHelper
{
    /// <summary>A failed read: the message names file, range and OS error; HResult carries it as .NET's file APIs do.</summary>
    [DoesNotReturn]
    internal static void ThrowReadFailed(string path, long offset, long length, int error) =>
        throw new IOException($"Reading {length} bytes at offset {offset} of '{path}' failed: {DescribeOSError(error)}.", HResultFromOSError(error));

    [DoesNotReturn]
    internal static void ThrowNullDestination(string name) =>
        throw new ArgumentNullException(name, "The destination pointer is null but the length is not zero. Pass memory of at least the length.");

    /// <summary>"errno 5 (Input/output error)" on Unix, "error 87 (The parameter is incorrect.)" on Windows.</summary>
    internal static string DescribeOSError(int error) =>
        OperatingSystem.IsWindows() ? $"error {error} ({Marshal.GetPInvokeErrorMessage(error)})" : Errno.Describe(error);

    /// <summary>The HResult .NET gives an IOException: errno on Unix, 0x8007xxxx on Windows.</summary>
    internal static int HResultFromOSError(int error) =>
        OperatingSystem.IsWindows() && error > 0 ? unchecked((int)0x80070000 | (error & 0xFFFF)) : error;

    [DoesNotReturn]
    internal static void ThrowPseudoFile(string path) =>
        throw new IOException($"'{path}' is a procfs file: its size reads 0 and its bytes are generated on each read, so DirectFileReader would read nothing. Read it with File.ReadAllBytes.");
}
