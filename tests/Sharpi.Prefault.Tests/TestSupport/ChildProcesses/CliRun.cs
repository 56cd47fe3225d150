using System.Text.Json;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// What one run of a program printed and returned: the tool in-process (the tool's tests add <c>CliRun.Of</c>), or a
/// child process (<see cref="ChildProcess"/>).
/// </summary>
internal sealed partial record CliRun(int ExitCode, string Out, string Err)
{
    public JsonElement Json()
    {
        using var document = JsonDocument.Parse(Out);
        return document.RootElement.Clone();
    }
}
