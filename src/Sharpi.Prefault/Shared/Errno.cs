namespace Sharpi.Prefault;

/// <summary>Errno as text ("errno 5 (Input/output error)"), for exceptions that carry no call.</summary>
internal static class Errno
{
    internal static string Describe(int errno) => PlatformError.FromErrno(string.Empty, errno).Describe();
}
