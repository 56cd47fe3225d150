using System.Reflection;

namespace Sharpi.Prefault.Tests.Prefault;

public sealed class PrefaultResultTests
{
    [Fact]
    public void CopyConstructor_CarriesEveryProperty()
    {
        // Every settable property gets a value unlike its default, so a property the copy leaves out shows.
        var original = new PrefaultResult();
        PropertyInfo[] settable = [.. typeof(PrefaultResult).GetProperties().Where(p => p.SetMethod is not null)];
        foreach (PropertyInfo property in settable)
        {
            property.SetValue(original, NonDefault(property.PropertyType));
        }

        var copy = new PrefaultResult(original);

        Assert.NotEmpty(settable);
        Assert.All(settable, p => Assert.Equal(p.GetValue(original), p.GetValue(copy)));
    }

    private static object NonDefault(Type type) => type switch
    {
        _ when type == typeof(bool) => true,
        _ when type == typeof(string) => "set",
        _ when type == typeof(long) => 7L,
        _ when type == typeof(int) => 7,
        _ when type == typeof(TimeSpan) => TimeSpan.FromSeconds(7),
        _ when type == typeof(PrefaultMethod) => PrefaultMethod.Touch,
        _ when type == typeof(IReadOnlyList<RegionFailure>) => new[] { new RegionFailure("r", 0x1000, 1, PlatformError.None, "m") },
        _ => throw new NotSupportedException($"Give {type} a non-default value here."),
    };
}
