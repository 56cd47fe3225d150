using System.Reflection;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// The skip-unless mechanism itself (compiled into every test project that uses it): a requirement that is not met
/// skips with its reason, and every name an attribute gives resolves, since typeof plus a string is not compile-checked.
/// </summary>
public sealed class ConditionalAttributeTests
{
    [Fact]
    public void Fact_WithAMissingRequirement_SkipsWithItsReason()
    {
        var fact = new ConditionalFactAttribute(typeof(Machine), nameof(Machine.HasIt), nameof(Machine.LacksIt), nameof(Machine.LacksMore));

        Assert.Equal(Machine.Reason, fact.Skip);
    }

    [Fact]
    public void Theory_WithAMissingRequirement_SkipsWithItsReason()
    {
        var theory = new ConditionalTheoryAttribute(typeof(Machine), nameof(Machine.LacksIt));

        Assert.Equal(Machine.Reason, theory.Skip);
    }

    [Fact]
    public void Fact_WithAFalseFlag_SkipsNamingIt()
    {
        var fact = new ConditionalFactAttribute(typeof(Machine), nameof(Machine.IsFalse));

        Assert.Equal("needs IsFalse (Machine.IsFalse is false)", fact.Skip);
    }

    [Fact]
    public void Fact_WithEveryRequirementMet_Runs()
    {
        var fact = new ConditionalFactAttribute(typeof(Machine), nameof(Machine.HasIt), nameof(Machine.IsTrue));

        Assert.Null(fact.Skip);
    }

    [Fact]
    public void Fact_NamingNoProperty_Throws()
    {
        Assert.Throws<ArgumentException>(() => new ConditionalFactAttribute(typeof(Machine), "NoSuchRequirement"));
    }

    [Fact]
    public void EveryConditionalAttribute_NamesStaticPropertiesOfItsType()
    {
        int named = 0;
        foreach (MethodInfo method in typeof(ConditionalAttributeTests).Assembly.GetTypes()
                     .SelectMany(static type => type.GetMethods(BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly)))
        {
            foreach (CustomAttributeData attribute in method.GetCustomAttributesData()
                         .Where(static a => a.AttributeType == typeof(ConditionalFactAttribute) || a.AttributeType == typeof(ConditionalTheoryAttribute)))
            {
                var requirements = (Type)attribute.ConstructorArguments[0].Value!;
                var names = (IReadOnlyCollection<CustomAttributeTypedArgument>)attribute.ConstructorArguments[1].Value!;
                Assert.True(names.Count > 0, $"{method.DeclaringType}.{method.Name} names no requirement");
                foreach (CustomAttributeTypedArgument name in names)
                {
                    _ = ConditionalFactAttribute.Find(requirements, (string)name.Value!);
                    named++;
                }
            }
        }

        Assert.True(named > 0, "no test of this assembly names a requirement");
    }

    private static class Machine
    {
        internal const string Reason = "needs the missing thing";

        public static string? HasIt => null;

        public static string? LacksIt => Reason;

        public static string? LacksMore => "needs more";

        public static bool IsTrue => true;

        public static bool IsFalse => false;
    }
}
