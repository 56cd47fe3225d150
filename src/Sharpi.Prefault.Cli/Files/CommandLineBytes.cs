using System.Buffers;
using System.Text;

namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// Which command-line arguments were not valid UTF-8 as the kernel passed them. .NET hands such an argument over with
/// U+FFFD for the bytes that are not, and that text may name another file: <c>g\xffh</c> read as <c>g\uFFFDh</c>, which
/// is the valid name of a file beside it whose name holds a real U+FFFD.
/// </summary>
internal static class CommandLineBytes
{
    private static readonly UTF8Encoding Strict = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    /// <summary>The lossy texts of this process's arguments whose bytes were not valid UTF-8 (Linux: /proc/self/cmdline).</summary>
    private static readonly HashSet<string> NotUtf8 = ReadNotUtf8();

    /// <summary>
    /// True when <paramref name="argument"/> is the text .NET made of an argument that was not valid UTF-8. Text with no
    /// U+FFFD never is; one with U+FFFD is when an argument's bytes were invalid and decode to it.
    /// </summary>
    public static bool WasNotUtf8(string argument) =>
        argument.Contains('\uFFFD', StringComparison.Ordinal) && NotUtf8.Contains(argument);

    private static HashSet<string> ReadNotUtf8()
    {
        var texts = new HashSet<string>(StringComparer.Ordinal);
        if (!OperatingSystem.IsLinux())
        {
            return texts; // macOS names are UTF-8; Windows arguments are UTF-16
        }

        byte[] buffer = ArrayPool<byte>.Shared.Rent(4096);
        try
        {
            int length = KernelFile.TryReadAll("/proc/self/cmdline", ref buffer);
            ReadOnlySpan<byte> rest = buffer.AsSpan(0, Math.Max(length, 0));
            while (!rest.IsEmpty)
            {
                int end = rest.IndexOf((byte)0);
                ReadOnlySpan<byte> argument = end < 0 ? rest : rest[..end];
                rest = end < 0 ? [] : rest[(end + 1)..];
                try
                {
                    _ = Strict.GetCharCount(argument);
                }
                catch (DecoderFallbackException)
                {
                    texts.Add(Encoding.UTF8.GetString(argument));
                }
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }

        return texts;
    }
}
