using System.Text.Json;
using Sharpi.Prefault.Cli;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>What one in-process run of the tool printed and returned.</summary>
internal sealed record CliRun(int ExitCode, string Out, string Err)
{
    public static CliRun Of(params string[] args)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        int code = CliApp.Run(args, output, error);
        return new CliRun(code, output.ToString(), error.ToString());
    }

    public JsonElement Json()
    {
        using var document = JsonDocument.Parse(Out);
        return document.RootElement.Clone();
    }
}

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
