using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A fact whose child process would pass vm.max_map_count with <c>mappings</c> new mappings, and locks up to
/// <c>lockedBytes</c>: skipped, with the reason, where the limit is that high or more (the case would not reach it) or
/// locking that much is not allowed.
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class MapCountFactAttribute : FactAttribute
{
    public MapCountFactAttribute(int mappings, long lockedBytes)
    {
        if (LockableFactAttribute.WhyNotLockable(lockedBytes) is string skip)
        {
            Skip = skip;
            return;
        }

        if (MappingRoom.ReadLimit() is not long limit || limit >= mappings)
        {
            Skip = $"needs vm.max_map_count below {mappings} to pass it (it is {MappingRoom.ReadLimit()?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "unknown"})";
        }
    }
}
