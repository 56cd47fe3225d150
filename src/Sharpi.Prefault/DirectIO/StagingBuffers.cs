using System.Runtime.InteropServices;

namespace Sharpi.Prefault;

/// <summary>
/// A reader's aligned staging buffers for Direct I/O: one slot per read in flight, each allocated on its first use,
/// reused by every later read, and freed by <see cref="Dispose"/> (or the finalizer). Also keeps the count of staging
/// bytes with a read in flight, and its peak, for the statistics.
/// </summary>
/// <remarks>A slot belongs to one worker of one read at a time, so the slots need no lock.</remarks>
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

    /// <summary>Bytes of the buffers allocated now.</summary>
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

    /// <summary>The most staging bytes that had reads in flight at one time.</summary>
    internal long PeakBytesInFlight => Interlocked.Read(ref _peakBytesInFlight);

    /// <summary>The buffer of <paramref name="slot"/>, allocated on its first use and kept until dispose.</summary>
    internal byte* Get(int slot)
    {
        if (_slots[slot] == 0)
        {
            _slots[slot] = (nint)NativeMemory.AlignedAlloc((nuint)_blockSize, (nuint)_alignment);
        }

        return (byte*)_slots[slot];
    }

    /// <summary>A read of <paramref name="bytes"/> into a staging buffer starts.</summary>
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

    /// <summary>A read of <paramref name="bytes"/> into a staging buffer is done.</summary>
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
