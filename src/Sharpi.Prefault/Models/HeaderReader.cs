using System.Buffers.Binary;

namespace Sharpi.Prefault;

/// <summary>
/// Reads a model header field by field, checking every length against the bytes left before allocating: a hostile
/// length fails with its offset.
/// </summary>
internal sealed class HeaderReader
{
    private const int BufferSize = 4096;

    private readonly Stream _stream;
    private readonly byte[] _buffer;
    private long _bufferAt; // the file offset of _buffer[0]
    private int _buffered;

    internal HeaderReader(Stream stream, string path)
    {
        _stream = stream;
        Path = path;
        Length = stream.Length;
        Position = stream.Position;
        _buffer = new byte[Math.Clamp(Length - Position, 0, BufferSize)]; // a small shard's header needs no more
    }

    internal string Path { get; }

    internal long Length { get; }

    internal long Position { get; private set; }

    internal long Remaining => Length - Position;

    internal uint ReadUInt32()
    {
        Span<byte> buffer = stackalloc byte[4];
        ReadExactly(buffer);
        return BinaryPrimitives.ReadUInt32LittleEndian(buffer);
    }

    internal ulong ReadUInt64()
    {
        Span<byte> buffer = stackalloc byte[8];
        ReadExactly(buffer);
        return BinaryPrimitives.ReadUInt64LittleEndian(buffer);
    }

    internal byte[] ReadBytes(long count)
    {
        Require(count);
        byte[] bytes = new byte[count];
        ReadExactly(bytes);
        return bytes;
    }

    /// <summary>Reads a string of at most <paramref name="cap"/> bytes, decoded reversibly so distinct names stay distinct.</summary>
    internal string ReadString(ulong length, int cap, string what)
    {
        long start = Position;
        if (length > (ulong)cap)
        {
            Fail(start, $"{what} claims {length} bytes, more than the {cap} this reader accepts.");
        }

        if (length <= BufferSize)
        {
            Span<byte> bytes = stackalloc byte[(int)length];
            ReadExactly(bytes);
            return TensorInfo.DecodeName(bytes);
        }

        return TensorInfo.DecodeName(ReadBytes((long)length));
    }

    internal void Skip(ulong count)
    {
        if (count > (ulong)Remaining)
        {
            ThrowHelper.ThrowTruncated(Path, Position, count > long.MaxValue ? long.MaxValue : (long)count, Length);
        }

        Position += (long)count;
    }

    internal void Require(long count)
    {
        if (count < 0 || count > Remaining)
        {
            ThrowHelper.ThrowTruncated(Path, Position, count, Length);
        }
    }

    internal void Fail(long offset, string detail) => ThrowHelper.ThrowModelFormat(Path, offset, detail);

    /// <summary>Fills <paramref name="destination"/> from the current position (a safetensors header's window).</summary>
    internal void ReadInto(Span<byte> destination) => ReadExactly(destination);

    private void ReadExactly(Span<byte> destination)
    {
        Require(destination.Length);
        int copied = 0;
        while (copied < destination.Length)
        {
            long at = Position + copied;
            long inBuffer = at - _bufferAt;
            if (inBuffer >= 0 && inBuffer < _buffered)
            {
                int n = Math.Min(_buffered - (int)inBuffer, destination.Length - copied);
                _buffer.AsSpan((int)inBuffer, n).CopyTo(destination[copied..]);
                copied += n;
            }
            else if (destination.Length - copied >= _buffer.Length)
            {
                // A long field (a safetensors JSON header): straight into the destination.
                _stream.Position = at;
                copied += Read(destination[copied..]);
            }
            else
            {
                _stream.Position = at;
                _bufferAt = at;
                _buffered = 0;
                _buffered = Read(_buffer.AsSpan(0, (int)Math.Min(_buffer.Length, Length - at)));
            }
        }

        Position += destination.Length;
    }

    /// <summary>Reads what the stream gives, at least a byte.</summary>
    private int Read(Span<byte> destination)
    {
        int n = _stream.Read(destination);
        if (n == 0)
        {
            // The file shrank between the length check and the read (another process truncating it).
            ThrowHelper.ThrowModelFormat(Path, Position, "the file ended early (was it truncated while being read?).", new EndOfStreamException());
        }

        return n;
    }
}
