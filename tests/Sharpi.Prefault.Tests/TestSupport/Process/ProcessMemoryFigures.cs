namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// Tests that read process-wide memory figures (RssFile, VmLck, page faults) or change process-wide limits join
/// this collection: it runs alone, so no other test's mapping moves the figures they measure.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ProcessMemoryFigures
{
    public const string Name = "Process memory figures";
}
