using System.CommandLine;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Bench;

/// <summary>What every measuring command does alike: its options in help order and its action, and the Linux check.</summary>
internal static class BenchCommand
{
    /// <summary>Adds <paramref name="options"/> to <paramref name="command"/> in the order help lists them, and sets its action.</summary>
    internal static Command Configure(Command command, Func<ParseResult, int> action, params Option[] options)
    {
        foreach (Option option in options)
        {
            command.Options.Add(option);
        }

        command.SetAction(action);
        return command;
    }

    /// <summary>An option <paramref name="name"/> that is <paramref name="defaultValue"/> where the command line leaves it out.</summary>
    internal static Option<T> Defaulted<T>(string name, T defaultValue, string description) =>
        new(name) { Description = description, DefaultValueFactory = _ => defaultValue };

    /// <summary>
    /// True on Linux; elsewhere writes "<paramref name="command"/> needs Linux: <paramref name="why"/>" to stderr, and the
    /// caller exits 2: the measurements evict the page cache and read /proc, which only Linux offers.
    /// </summary>
    [SupportedOSPlatformGuard("linux")]
    internal static bool RunsHere(string command, string why)
    {
        if (OperatingSystem.IsLinux())
        {
            return true;
        }

        Console.Error.WriteLine($"{command} needs Linux: {why}");
        return false;
    }
}
