namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>The theory form of <see cref="LockableFactAttribute"/>.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class LockableTheoryAttribute : TheoryAttribute
{
    public LockableTheoryAttribute(long bytes)
    {
        Skip = LockableFactAttribute.WhyNotLockable(bytes);
    }
}
