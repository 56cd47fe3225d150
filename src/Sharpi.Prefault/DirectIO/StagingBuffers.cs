namespace Sharpi.Prefault;

/// <summary>A reader's aligned staging buffers, one per read in flight, allocated on first use, freed by <see cref="Dispose"/>.</summary>
internal sealed unsafe class StagingBuffers : IDisposable
{
    private readonly nint[] _slots;
    private readonly int _blockSize;
    private readonly int _alignment;
    private long _bytesInFlight;
    private long _peakBytesInFlight;

    internal StagingBuffers(int slots, int blockSize, int alignment)
    {
        _slots = new nint[slots];
        _blockSize = blockSize;
        _alignment = alignment;
    }

    ~StagingBuffers() => Free();

    internal long AllocatedBytes
    {
        get
        {
            long bytes = 0;
            foreach (nint slot in _slots)
            {
                bytes += slot != 0 ? _blockSize : 0;
            }

            return bytes;
        }
    }

    /// <summary>The most staging bytes in flight at once.</summary>
    internal long PeakBytesInFlight => Interlocked.Read(ref _peakBytesInFlight);

    /// <summary>From this size, backed by 2 MiB pages where the OS has them.</summary>
    private const int HugePage = 2 * 1024 * 1024;

    /// <summary>Allocated on first use, kept until dispose.</summary>
    internal byte* Get(int slot)
    {
        if (_slots[slot] == 0)
        {
            _slots[slot] = (nint)Allocate();
        }

        return (byte*)_slots[slot];
    }

    /// <summary>An aligned buffer, huge-page backed on Linux from 2 MiB: 4 KiB pages cap an O_DIRECT request (docs/why/direct-io.md).</summary>
    private byte* Allocate()
    {
        if (!OperatingSystem.IsLinux() || _blockSize < HugePage)
        {
            return (byte*)NativeMemory.AlignedAlloc((nuint)_blockSize, (nuint)_alignment);
        }

        byte* buffer = (byte*)NativeMemory.AlignedAlloc((nuint)_blockSize, HugePage);
        _ = Interop.Libc.Madvise(buffer, (nuint)_blockSize, Interop.LinuxConstants.MADV_HUGEPAGE); // best effort
        for (long at = 0; at < _blockSize; at += Pages.Size)
        {
            buffer[at] = 0; // fault in now, not inside the first read
        }

        return buffer;
    }

    internal void BeginRead(int bytes)
    {
        long now = Interlocked.Add(ref _bytesInFlight, bytes);
        long peak = Interlocked.Read(ref _peakBytesInFlight);
        while (now > peak)
        {
            long seen = Interlocked.CompareExchange(ref _peakBytesInFlight, now, peak);
            if (seen == peak)
            {
                break;
            }

            peak = seen;
        }
    }

    internal void EndRead(int bytes) => Interlocked.Add(ref _bytesInFlight, -bytes);

    public void Dispose()
    {
        Free();
        GC.SuppressFinalize(this);
    }

    private void Free()
    {
        for (int i = 0; i < _slots.Length; i++)
        {
            if (_slots[i] != 0)
            {
                NativeMemory.AlignedFree((void*)_slots[i]);
                _slots[i] = 0;
            }
        }
    }
}
