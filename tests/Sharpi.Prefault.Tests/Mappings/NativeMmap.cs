using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace Sharpi.Prefault.Tests.Mappings;

/// <summary>
/// A mapping made the way an engine's native code makes one: mmap called directly (the library's own declaration),
/// outside the library's API, so the library can only find it by looking at the process's mappings.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed unsafe class NativeMmap : IDisposable
{
    private const int ProtRead = 1;
    private const int ProtWrite = 2;
    private const int MapShared = 1;
    private const int MapPrivate = 2;

    private NativeMmap(nint address, long length)
    {
        Address = address;
        Length = length;
    }

    public nint Address { get; }

    public long Length { get; }

    /// <summary>
    /// Maps <paramref name="length"/> bytes of <paramref name="path"/> from <paramref name="offset"/> (page-aligned),
    /// read-only, or with <paramref name="writable"/> read-write and private (copy-on-write, as ONNX Runtime maps its
    /// initializers), and closes the descriptor.
    /// </summary>
    public static NativeMmap Map(string path, long offset, long length, bool shared = false, bool writable = false)
    {
        using SafeFileHandle handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        nint address = (nint)global::Interop.Libc.Mmap(null, (nuint)length, writable ? ProtRead | ProtWrite : ProtRead, shared ? MapShared : MapPrivate, handle, offset);
        if (address == -1)
        {
            throw new IOException($"mmap failed: errno {Marshal.GetLastPInvokeError()}");
        }

        return new NativeMmap(address, length);
    }

    public ReadOnlySpan<byte> Bytes(long offset, int length) => new((void*)(Address + (nint)offset), length);

    public void Dispose()
    {
        if (global::Interop.Libc.Munmap((void*)Address, (nuint)Length) != 0)
        {
            throw new IOException($"munmap failed: errno {Marshal.GetLastPInvokeError()}");
        }
    }
}

/// <summary>Named pipes for the tests that a model path naming one is refused without blocking.</summary>
[SupportedOSPlatform("linux")]
internal static partial class NativeFifo
{
    public static void Create(string path)
    {
        if (Mkfifo(path, Convert.ToUInt32("600", 8)) != 0)
        {
            throw new IOException($"mkfifo failed: errno {Marshal.GetLastPInvokeError()}");
        }
    }

    [LibraryImport("libc", EntryPoint = "mkfifo", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
    private static partial int Mkfifo(string path, uint mode);
}
