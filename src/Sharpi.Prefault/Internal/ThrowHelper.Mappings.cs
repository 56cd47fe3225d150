using System.Diagnostics.CodeAnalysis;
using System.Runtime.InteropServices;

namespace Sharpi.Prefault;

internal static partial class ThrowHelper
{
    [DoesNotReturn]
    internal static void ThrowModelFileNotFound(string path) =>
        throw new FileNotFoundException($"Could not find '{path}'. Name a model file (.gguf, .safetensors, a model.safetensors.index.json) or a plain file of weights.", path);

    [DoesNotReturn]
    internal static void ThrowNotRegularFile(string path, FileKind kind) =>
        throw new IOException(kind switch
        {
            FileKind.Directory => $"'{path}' is a directory, not a file: name the model file in it.",
            FileKind.Fifo => $"'{path}' is a FIFO (named pipe), not a regular file: it cannot be mapped, and opening it for reading would block until a writer appears.",
            FileKind.CharacterDevice => $"'{path}' is a character device, not a regular file: name a model file.",
            FileKind.BlockDevice => $"'{path}' is a block device, not a regular file: name a model file.",
            FileKind.Socket => $"'{path}' is a socket, not a regular file: name a model file.",
            _ => $"'{path}' is not a regular file: name a model file.",
        });

    [DoesNotReturn]
    internal static void ThrowNulInPath(string path) =>
        throw new IOException($"'{path.Replace("\0", "\\0", StringComparison.Ordinal)}' contains a NUL character; no file has such a name.");

    [DoesNotReturn]
    internal static void ThrowStatFailed(string path, int errno) =>
        throw new IOException($"Cannot stat '{path}': {Marshal.GetPInvokeErrorMessage(errno)} (errno {errno}).", errno);

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
    internal static void ThrowMappingOffsetsUnknown() =>
        throw new PlatformNotSupportedException(
            "Windows does not tell which file offset a mapped view starts at, so tensors cannot be located in another component's mappings; use NativeMappings.OfFile for the whole mapped ranges.");
}
