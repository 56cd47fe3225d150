using System.Reflection;
using Microsoft.Extensions.Logging;
using Sharpi.Prefault.Tests.TestSupport;

namespace Sharpi.Prefault.Tests.PublicApi;

/// <summary>
/// An options record's logger and progress sink are attachments, not settings: two options that differ only in them
/// are equal and hash alike, and ToString prints every setting and neither of them.
/// </summary>
public sealed class OptionsAttachmentTests
{
    private static readonly ILogger Logger = new ListLogger();

    public static TheoryData<object, object> OptionsWithALoggerAndWithout => new()
    {
        { PrefaultOptions.Default with { Logger = Logger, Progress = new Progress<PrefaultProgress>() }, PrefaultOptions.Default },
        { LockOptions.Default with { Logger = Logger }, LockOptions.Default },
        { ReclaimOptions.Default with { Logger = Logger }, ReclaimOptions.Default },
        { DirectReadOptions.Default with { Logger = Logger }, DirectReadOptions.Default },
    };

    [Theory]
    [MemberData(nameof(OptionsWithALoggerAndWithout))]
    public void Options_ThatDifferOnlyInTheirLogger_AreEqual_AndPrintAlike(object withLogger, object without)
    {
        Assert.Equal(without, withLogger);
        Assert.Equal(without.GetHashCode(), withLogger.GetHashCode());
        Assert.Equal(without.ToString(), withLogger.ToString());
    }

    [Theory]
    [MemberData(nameof(OptionsWithALoggerAndWithout))]
    public void ToString_OfOptions_NamesEverySettingButTheAttachments(object withLogger, object without)
    {
        _ = without;
        string text = withLogger.ToString()!;
        foreach (PropertyInfo property in withLogger.GetType().GetProperties(BindingFlags.Public | BindingFlags.Instance))
        {
            bool attachment = property.PropertyType == typeof(ILogger) || property.PropertyType == typeof(IProgress<PrefaultProgress>);
            Assert.True(text.Contains($"{property.Name} = ", StringComparison.Ordinal) != attachment, $"{property.Name} in {text}");
        }
    }

    [Fact]
    public void Options_ThatDifferInASetting_AreNotEqual()
    {
        Assert.NotEqual(PrefaultOptions.Default, PrefaultOptions.Default with { ChunkSize = 4096 });
        Assert.NotEqual(DirectReadOptions.Default, DirectReadOptions.Default with { MaxReadsInFlight = 1 });
    }
}
