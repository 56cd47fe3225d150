using System.Diagnostics.CodeAnalysis;

namespace Sharpi.Prefault;

internal static partial class ThrowHelper
{
    [DoesNotReturn]
    internal static void ThrowModelFormat(string path, long offset, string detail, Exception? inner = null) =>
        throw new ModelFormatException(path, offset, detail, inner);

    [DoesNotReturn]
    internal static void ThrowTruncated(string path, long offset, long needed, long fileLength) =>
        throw new ModelFormatException(path, offset,
            $"the header needs {needed} more bytes but the file ends at {fileLength}; the file is truncated or the length field is corrupt.");

    [DoesNotReturn]
    internal static void ThrowNotADecodedName(string paramName) =>
        throw new ArgumentException(
            "The name holds a lone surrogate outside U+DC80..U+DCFF, which no decoded tensor name holds (TensorInfo.DecodeName).", paramName);

    [DoesNotReturn]
    internal static void ThrowShardRequired(int fileCount, string paramName) =>
        throw new ArgumentException(
            $"The index spans {fileCount} files; name the file the view maps (one of TensorIndex.Files).", paramName);

    [DoesNotReturn]
    internal static void ThrowUnknownFile(string file, string paramName) =>
        throw new ArgumentException($"'{file}' is not one of the index's files (TensorIndex.Files).", paramName);

    [DoesNotReturn]
    internal static void ThrowTensorOutsideView(string name, long offset, long length, long capacity, string paramName) =>
        throw new ArgumentOutOfRangeException(paramName,
            $"Tensor {name} at offset {offset} with length {length} lies outside the view of {capacity} bytes; map the whole file from offset 0.");

    [DoesNotReturn]
    internal static void ThrowEmptyPattern(string paramName) =>
        throw new ArgumentException("Tensor name patterns must be non-empty (use \"*\" for all tensors).", paramName);

    [DoesNotReturn]
    internal static void ThrowNullSelection(int position, string paramName) =>
        throw new ArgumentNullException(paramName, $"Selection {position} is null; pass TensorSelection.All for every tensor.");

    [DoesNotReturn]
    internal static void ThrowTensorNotInModel(string name, string filePath, string paramName) =>
        throw new ArgumentException($"Tensor '{name}' lies in '{filePath}', which is not one of this model's files (MappedModel.Files).", paramName);

    [DoesNotReturn]
    internal static void ThrowFileNotInModel(string file, string paramName) =>
        throw new ArgumentException($"'{file}' is not one of this model's files (MappedModel.Files).", paramName);

    [DoesNotReturn]
    internal static void ThrowTensorPastEnd(string name, long end, string filePath, long fileLength) =>
        throw new ModelFormatException(filePath, end,
            $"tensor '{name}' ends at {end}, past the end of the file ({fileLength} bytes); the file changed after its header was read.");

    [DoesNotReturn]
    internal static void ThrowPatternMatchesNothing(string pattern, int? selection, string modelPath, IReadOnlyList<TensorInfo> tensors, string paramName)
    {
        string which = selection is int position ? $" (an include pattern of selection {position})" : string.Empty;
        string example = tensors.Count > 0 ? $", such as '{tensors[0].Name}'" : string.Empty;
        throw new ArgumentException(
            $"Tensor name pattern '{pattern}'{which} matches no tensor of '{modelPath}' ({tensors.Count} tensors{example}). A pattern "
            + "matches a whole name, case-sensitively: '*' matches any run of characters, dots included, and '?' one character. "
            + "For a selection that may match nothing in some models, ask TensorIndex.Select(selection) first.", paramName);
    }
}
