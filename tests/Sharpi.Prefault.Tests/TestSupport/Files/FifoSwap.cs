using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A FIFO made beside a file and swapped with it by renameat2(RENAME_EXCHANGE) in a tight loop on a thread of its own,
/// until disposed: a path checked to be a regular file may name the FIFO by the time it is opened (an attacker who
/// can write the model's directory). The file is back at its path once disposed (an even number of swaps).
/// </summary>
public sealed partial class FifoSwap : IDisposable
{
    private const int AtCurrentDirectory = -100; // AT_FDCWD
    private const uint RenameExchange = 2; // RENAME_EXCHANGE, include/uapi/linux/fs.h

    private readonly string _file;
    private readonly string _fifo;
    private readonly Thread _thread;
    private volatile bool _stop;
    private long _swaps;
    private int _errno;

    private FifoSwap(string file, string fifo)
    {
        _file = file;
        _fifo = fifo;
        _thread = new Thread(Swap) { IsBackground = true, Name = "fifo-swap" };
    }

    /// <summary>Swaps done so far.</summary>
    public long Swaps => Interlocked.Read(ref _swaps);

    /// <summary>Makes the FIFO (<paramref name="file"/> with ".fifo" added) and starts swapping.</summary>
    public static FifoSwap Start(string file)
    {
        string fifo = file + ".fifo";
        if (MkFifo(fifo, 0x180) != 0)
        {
            throw new IOException($"mkfifo {fifo}: errno {Marshal.GetLastPInvokeError()}");
        }

        var swap = new FifoSwap(file, fifo);
        swap._thread.Start();
        return swap;
    }

    private void Swap()
    {
        while (!_stop)
        {
            if (RenameAt2(AtCurrentDirectory, _file, AtCurrentDirectory, _fifo, RenameExchange) != 0)
            {
                _errno = Marshal.GetLastPInvokeError();
                return;
            }

            Interlocked.Increment(ref _swaps);
        }
    }

    public void Dispose()
    {
        _stop = true;
        _thread.Join();
        if (Swaps % 2 == 1)
        {
            _ = RenameAt2(AtCurrentDirectory, _file, AtCurrentDirectory, _fifo, RenameExchange);
        }

        File.Delete(_fifo);
        if (_errno != 0)
        {
            throw new IOException($"renameat2(RENAME_EXCHANGE) failed: errno {_errno}");
        }
    }

    [LibraryImport(global::Interop.Libraries.Libc, EntryPoint = "mkfifo", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
    private static partial int MkFifo(string path, uint mode);

    [LibraryImport(global::Interop.Libraries.Libc, EntryPoint = "renameat2", StringMarshalling = StringMarshalling.Utf8, SetLastError = true)]
    private static partial int RenameAt2(int oldDirectory, string oldPath, int newDirectory, string newPath, uint flags);
}
