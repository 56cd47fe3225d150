using System.Diagnostics.CodeAnalysis;

namespace Sharpi.Prefault;

internal static partial class ThrowHelper
{
    [DoesNotReturn]
    internal static void ThrowMappingOffsetsUnknown() =>
        throw new PlatformNotSupportedException(
            "Windows does not tell which file offset a mapped view starts at, so tensors cannot be located in another component's mappings; use NativeMappings.OfFile for the whole mapped ranges.");
}
