namespace Sharpi.Prefault;

/// <summary>
/// A model file's header is malformed, truncated, or claims what the file cannot hold; the message names the file,
/// the offset and what was wrong.
/// </summary>
/// <remarks>Every defect of a file's bytes surfaces as this exception, never as an out-of-memory or overflow.</remarks>
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
