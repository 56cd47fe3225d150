using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The plain C mmap reference: <c>firstcall</c>'s <c>c-populate</c> reader (Native/reader.c, compiled at run time as
/// <c>firstcall</c> compiles it), run cold in a fresh process beside the other rows, so every pass shows what plain C
/// loads the file in through a mapping. A reference below the ranked rows, never one of them; it runs no request.
/// </summary>
internal abstract partial class ColdStartStrategy
{
    /// <summary>The row's name: <c>firstcall</c>'s name for the same reader.</summary>
    internal static readonly string CReferenceName = CReaders.RowName(CReaders.Populate);

    /// <summary>Whether the row is a reference printed below the ranked rows (the C reader), never ranked by the verdict.</summary>
    internal virtual bool IsReference => false;

    /// <summary>
    /// Whether the verdict ranks the row against the default: the library's rows and the plain ones that load
    /// through the page cache into the engine's mapping (none, touch-1, willneed). The rows that copy the file into a
    /// buffer (buffered-read, direct-io), the external vmtouch, the limit readers and the references are named beside
    /// the ranking, not in it.
    /// </summary>
    internal virtual bool IsRanked => false;

    /// <summary>Whether the row named <paramref name="name"/> is ranked (<see cref="IsRanked"/>); false for a name that is no strategy.</summary>
    internal static bool IsRankedRow(string name) => All.FirstOrDefault(s => s.Name == name)?.IsRanked ?? false;

    /// <summary>Whether the row named <paramref name="name"/> is a reference (<see cref="IsReference"/>).</summary>
    internal static bool IsReferenceRow(string name) => All.FirstOrDefault(s => s.Name == name)?.IsReference ?? false;

    /// <summary>The C reader's row: its open to last byte in a fresh process, cold only.</summary>
    private sealed class CReference() : ColdStartStrategy(CReferenceName,
        CReaders.Describe(CReaders.Populate) + "; a fresh process per repetition, its open to last byte, no request; a reference, not ranked")
    {
        internal override bool IsReference => true;

        internal override bool RunsIn(CacheState cache) => cache == CacheState.Cold;

        internal override StrategyTimes Execute(WeightsFile file, CacheState cache, BenchSettings settings)
        {
            CReaders readers = settings.CReaders ?? throw new BenchException($"The {Name} row has no compiled C reader.");
            FreshSample sample = readers.Run(CReaders.Populate, file.Path);
            return new StrategyTimes(sample.LoadMs / 1000, 0, string.Create(CultureInfo.InvariantCulture, $"C reader: {sample.Method}"))
            {
                Host = ReferenceHost,
            };
        }
    }

    /// <summary>The <see cref="ResultRow.Host"/> of the C reference: a process of its own, no request.</summary>
    internal const string ReferenceHost = "c";
}
