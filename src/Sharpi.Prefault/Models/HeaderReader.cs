using System.Buffers.Binary;
using System.Text;

namespace Sharpi.Prefault;

/// <summary>
/// Reads a model header field by field from a seekable stream, checking every length against the bytes left in
/// the file before reading or allocating, so a hostile length fails with the offset instead of allocating.
/// </summary>
internal sealed class HeaderReader
{
    private readonly Stream _stream;

    internal HeaderReader(Stream stream, string path)
    {
        _stream = stream;
        Path = path;
        Length = stream.Length;
        Position = stream.Position;
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

    /// <summary>Reads a UTF-8 string of <paramref name="length"/> bytes, at most <paramref name="cap"/>.</summary>
    internal string ReadString(ulong length, int cap, string what)
    {
        long start = Position;
        if (length > (ulong)cap)
        {
            Fail(start, $"{what} claims {length} bytes, more than the {cap} this reader accepts.");
        }

        byte[] bytes = ReadBytes((long)length);
        return Encoding.UTF8.GetString(bytes);
    }

    internal void Skip(ulong count)
    {
        if (count > (ulong)Remaining)
        {
            ThrowHelper.ThrowTruncated(Path, Position, count > long.MaxValue ? long.MaxValue : (long)count, Length);
        }

        Position += (long)count;
        _stream.Seek((long)count, SeekOrigin.Current);
    }

    internal void Require(long count)
    {
        if (count < 0 || count > Remaining)
        {
            ThrowHelper.ThrowTruncated(Path, Position, count, Length);
        }
    }

    internal void Fail(long offset, string detail) => ThrowHelper.ThrowModelFormat(Path, offset, detail);

    private void ReadExactly(Span<byte> buffer)
    {
        Require(buffer.Length);
        try
        {
            _stream.ReadExactly(buffer);
        }
        catch (EndOfStreamException e)
        {
            // The file shrank between the length check and the read (another process truncating it).
            ThrowHelper.ThrowModelFormat(Path, Position, "the file ended early (was it truncated while being read?).", e);
        }

        Position += buffer.Length;
    }
}
