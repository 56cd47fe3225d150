namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// Tests that set process-wide state (environment variables such as SHARPI_PREFAULT, page_reporting_order) or
/// depend on it (how much of the process is locked) join this collection: it runs alone, never beside another test,
/// so no other test sees a setting it did not make.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class SerializedEnvironment
{
    public const string Name = "Process environment";
}

/// <summary>Sets an environment variable for a test's duration and restores the previous value.</summary>
public sealed class EnvironmentVariableScope : IDisposable
{
    private readonly string _name;
    private readonly string? _previous;

    public EnvironmentVariableScope(string name, string? value)
    {
        _name = name;
        _previous = Environment.GetEnvironmentVariable(name);
        Environment.SetEnvironmentVariable(name, value);
    }

    public void Dispose() => Environment.SetEnvironmentVariable(_name, _previous);
}
