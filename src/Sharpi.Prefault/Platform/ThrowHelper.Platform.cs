using System.Diagnostics.CodeAnalysis;

namespace Sharpi.Prefault;

// FileStatus's: what a path names, and why it is no file to open.
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
}
