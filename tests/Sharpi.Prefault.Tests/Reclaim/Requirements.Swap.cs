using Sharpi.Prefault.Tests.Reclaim;

namespace Sharpi.Prefault.Tests.TestSupport;

public static partial class Requirements
{
    /// <summary>A swap file the test may switch on (root, swap support).</summary>
    public static string? Swap => SwapFile.Unavailable is string why ? $"needs swap the test may switch on: {why}" : null;
}
