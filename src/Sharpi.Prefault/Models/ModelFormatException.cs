namespace Sharpi.Prefault;

/// <summary>
/// A model file (GGUF, safetensors, or a safetensors index) whose header is malformed, truncated, or claims
/// something the file cannot hold. The message names the file, the byte offset and what was wrong.
/// </summary>
/// <remarks>
/// Every defect of a file's bytes surfaces as this exception (a <see cref="FormatException"/>), never as an
/// <see cref="OutOfMemoryException"/>, <see cref="IndexOutOfRangeException"/> or <see cref="OverflowException"/>:
/// a header cannot make the reader allocate more than the file could describe.
/// </remarks>
public class ModelFormatException : FormatException
{
    /// <summary>Creates an exception with a default message.</summary>
    public ModelFormatException()
        : base("The model file is malformed.")
    {
    }

    /// <summary>Creates an exception with a message.</summary>
    /// <param name="message">What was wrong.</param>
    public ModelFormatException(string message)
        : base(message)
    {
    }

    /// <summary>Creates an exception with a message and the exception that caused it.</summary>
    /// <param name="message">What was wrong.</param>
    /// <param name="innerException">The underlying failure (for example a JSON parse error).</param>
    public ModelFormatException(string message, Exception? innerException)
        : base(message, innerException)
    {
    }

    // A defect at offset of filePath, detail saying what was wrong: the format readers' only way to build one.
    internal ModelFormatException(string filePath, long offset, string detail, Exception? innerException = null)
        : base($"{filePath}: at offset {offset}: {detail}", innerException)
    {
        FilePath = filePath;
        Offset = offset;
    }

    /// <summary>The file whose bytes are wrong, when known.</summary>
    public string? FilePath { get; }

    /// <summary>Byte offset in <see cref="FilePath"/> where the defect was found (-1 when unknown).</summary>
    public long Offset { get; } = -1;
}
