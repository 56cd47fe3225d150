namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>The theory form of <see cref="ConditionalFactAttribute"/>: skipped, with the first missing requirement's reason, unless all hold.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class ConditionalTheoryAttribute : TheoryAttribute
{
    public ConditionalTheoryAttribute(Type requirements, params string[] names)
    {
        Requirements = requirements;
        Names = names;
        Skip = ConditionalFactAttribute.WhyUnmet(requirements, names);
    }

    public Type Requirements { get; }

    public string[] Names { get; }
}
