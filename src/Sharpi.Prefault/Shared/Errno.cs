namespace Sharpi.Prefault;

/// <summary>Errno to text, for exceptions that carry no call: "errno 5 (Input/output error)" (see <see cref="PlatformError"/>).</summary>
internal static class Errno
{
    internal static string Describe(int errno) => PlatformError.FromErrno(string.Empty, errno).Describe();
}
