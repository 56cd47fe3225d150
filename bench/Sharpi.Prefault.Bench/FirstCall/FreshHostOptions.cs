using System.CommandLine;

namespace Sharpi.Prefault.Bench;

/// <summary>
/// Where and how the fresh-process hosts are published (<see cref="FirstCallHosts"/>): the options <c>firstcall</c>
/// and coldstart's fresh-process rows share.
/// </summary>
internal sealed class FreshHostOptions
{
    internal Option<string> Framework { get; } = new("--framework")
    {
        Description = "Target framework the fresh-process hosts are published for.",
        DefaultValueFactory = _ => "net10.0",
    };

    internal Option<string> HostsDir { get; } = new("--hosts-dir")
    {
        Description = "Where the fresh-process hosts are published (and the package host's feed and package cache, and the compiled C reader).",
        DefaultValueFactory = _ => Path.Combine(Path.GetTempPath(), "sharpi-prefault-firstcall"),
    };

    internal Option<bool> ReuseHosts { get; } = new("--reuse-hosts")
    {
        Description = "Run the hosts already published in --hosts-dir instead of publishing them again (after a library change, publish again).",
    };

    internal IEnumerable<Option> All => [Framework, HostsDir, ReuseHosts];

    internal string Directory(ParseResult parse) => Path.GetFullPath(parse.GetValue(HostsDir)!);

    /// <summary>Publishes each of <paramref name="kinds"/> (or reuses it) and returns its executable by kind.</summary>
    internal Dictionary<string, string> Publish(ParseResult parse, IEnumerable<string> kinds, ProgressLine progress)
    {
        string repository = FirstCallHosts.FindRepository();
        var hosts = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (string kind in kinds)
        {
            hosts[kind] = FirstCallHosts.Publish(repository, Directory(parse), kind, parse.GetValue(Framework)!, parse.GetValue(ReuseHosts), progress);
        }

        return hosts;
    }
}
