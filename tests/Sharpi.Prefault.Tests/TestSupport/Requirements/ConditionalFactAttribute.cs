using System.Reflection;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A fact that runs only where every named requirement holds, and shows as skipped with the first missing one's reason
/// elsewhere (dotnet/runtime's <c>ConditionalFact(typeof(PlatformDetection), nameof(...))</c>): each name is a static
/// property of <paramref name="requirements"/> that returns a skip reason (null when met) or a bool.
/// </summary>
/// <remarks>xUnit 2 reads <see cref="FactAttribute.Skip"/> at discovery, so the requirements are evaluated then.</remarks>
[AttributeUsage(AttributeTargets.Method)]
public sealed class ConditionalFactAttribute : FactAttribute
{
    public ConditionalFactAttribute(Type requirements, params string[] names)
    {
        Requirements = requirements;
        Names = names;
        Skip = WhyUnmet(requirements, names);
    }

    public Type Requirements { get; }

    public string[] Names { get; }

    /// <summary>The reason of the first requirement among <paramref name="names"/> that is not met, or null when all are.</summary>
    /// <exception cref="ArgumentException">A name is no static bool or string property of <paramref name="requirements"/>.</exception>
    internal static string? WhyUnmet(Type requirements, string[] names)
    {
        foreach (string name in names)
        {
            object? value = Find(requirements, name).GetValue(null);
            if (value is string reason)
            {
                return reason;
            }

            if (value is false)
            {
                return $"needs {name} ({requirements.Name}.{name} is false)";
            }
        }

        return null;
    }

    /// <summary>The static property <paramref name="name"/> of <paramref name="requirements"/>, of type bool or string.</summary>
    internal static PropertyInfo Find(Type requirements, string name) =>
        requirements.GetProperty(name, BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static) is { } property
            && (property.PropertyType == typeof(bool) || property.PropertyType == typeof(string))
            ? property
            : throw new ArgumentException($"{requirements.FullName} has no static bool or string property {name}", nameof(name));
}
