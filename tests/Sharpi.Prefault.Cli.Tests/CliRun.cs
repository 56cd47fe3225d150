using Sharpi.Prefault.Cli;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>One in-process run of the tool.</summary>
internal sealed partial record CliRun
{
    public static CliRun Of(params string[] args)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        int code = CliApp.Run(args, output, error);
        return new CliRun(code, output.ToString(), error.ToString());
    }
}

/// <summary>The shape of the tool's JSON documents.</summary>
internal static class JsonShape
{
    /// <summary>The property names of an object, in order: the contract tests compare these exactly.</summary>
    public static string[] Names(JsonElement element) => [.. element.EnumerateObject().Select(p => p.Name)];

    public static void HasProperties(JsonElement element, params string[] expected)
    {
        Assert.Equal(JsonValueKind.Object, element.ValueKind);
        string[] names = Names(element);
        foreach (string name in expected)
        {
            Assert.Contains(name, names);
        }
    }
}
