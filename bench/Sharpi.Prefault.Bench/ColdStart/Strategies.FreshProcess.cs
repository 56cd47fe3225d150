using System.Globalization;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// The fresh-process rows: <c>MmapPrefault.Run</c> with the defaults as an engine calls it, once, in a process of its
/// own (bench/Sharpi.Prefault.FirstCall published as a host, see <see cref="FirstCallHosts"/>), so the row pays what
/// the in-process <c>prefault</c> row does not: the library's first-call cost (the JIT, types initialised) on top of
/// the load. Opt-in (<c>--fresh</c>, or named in <c>--strategies</c>): publishing the hosts takes minutes.
/// </summary>
internal abstract partial class ColdStartStrategy
{
    /// <summary>The host kind of a fresh-process row (<see cref="FirstCallHosts"/>); null for a row that runs in the bench's process.</summary>
    internal virtual string? FreshHost => null;

    /// <summary>Whether the row runs only when asked for (<c>--fresh</c>, or by name in <c>--strategies</c>).</summary>
    internal virtual bool IsOptIn => FreshHost is not null;

    /// <summary>The row name of the fresh-process row for host <paramref name="kind"/>.</summary>
    internal static string FreshRowName(string kind) => "prefault-" + kind;

    /// <summary>
    /// A fresh process maps the file and makes its first <c>MmapPrefault.Run</c> (the defaults); the row's time is the
    /// host's own map + first call (its load: the process's start-up before it is not the library's), and it runs no
    /// request, since its page tables went with the process.
    /// </summary>
    private sealed class FreshProcess(string kind) : ColdStartStrategy(FreshRowName(kind),
        $"a fresh process ({FirstCallHosts.Describe(kind)}) maps the file and makes its first MmapPrefault.Run with the defaults; " +
        "its map + first call, no request")
    {
        internal override string? FreshHost => kind;

        internal override bool IsRanked => true;

        internal override StrategyTimes Execute(WeightsFile file, CacheState cache, BenchSettings settings)
        {
            string executable = settings.FreshHosts.GetValueOrDefault(kind)
                ?? throw new BenchException($"The {Name} row has no published {kind} host.");
            FirstCallSample sample = FirstCallHosts.Run(kind, executable, file.Path);
            if (!sample.HasRun)
            {
                throw new BenchException($"The {kind} host's first MmapPrefault.Run did not cover the file (method {sample.Method}).");
            }

            string method = string.Create(CultureInfo.InvariantCulture,
                $"{kind} host: {sample.Method.ToLowerInvariant()}, map {sample.MapMs:0.0} ms, first call {sample.FirstMs:0.0} ms, {sample.JitMethods} methods jitted");
            return new StrategyTimes(sample.LoadMs / 1000, 0, method) { Host = kind };
        }
    }
}
