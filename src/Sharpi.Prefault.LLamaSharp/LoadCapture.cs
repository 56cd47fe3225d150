namespace Sharpi.Prefault.LLamaSharp;

/// <summary>
/// The repack lines of one load, from its loader thread, in the order llama.cpp wrote them; and whether the tap heard
/// llama.cpp at all while the load ran (it always logs a load), which tells a live tap from a replaced one.
/// </summary>
internal sealed class LoadCapture(LLamaLogTap tap, TensorIndex? index)
{
    private readonly ReportedNames _reported = new(index);
    private readonly List<string> _names = [];
    private readonly long _linesAtStart = tap.Lines;

    internal LLamaLogTap Tap { get; } = tap;

    /// <summary>How many names the list holds (read on the loader thread, which also writes it).</summary>
    internal int Count => _names.Count;

    /// <summary>True when the tap received any line since the capture began.</summary>
    internal bool HeardTheLoad => Tap.Lines > _linesAtStart;

    internal IReadOnlyList<string> Names => _names;

    /// <summary>True once the load returned: a line logged later on the same (pooled) thread belongs to no load.</summary>
    internal bool IsClosed { get; private set; }

    internal void Add(string reported)
    {
        if (_reported.Resolve(reported) is { } name)
        {
            _names.Add(name);
        }
    }

    internal void Close() => IsClosed = true;
}
