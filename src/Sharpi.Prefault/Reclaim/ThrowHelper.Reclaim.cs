using System.Diagnostics.CodeAnalysis;

namespace Sharpi.Prefault;

internal static partial class ThrowHelper
{
    private const int RefusalsShown = 8;

    [DoesNotReturn]
    internal static void ThrowReclaimRefused(List<string> refusals, string paramName)
    {
        string shown = string.Join("; ", refusals.Take(RefusalsShown));
        string more = refusals.Count > RefusalsShown ? $"; and {refusals.Count - RefusalsShown} more" : string.Empty;
        throw new ArgumentException($"Reclaim refused; nothing was released. {shown}{more}.", paramName);
    }
}
