using System.CommandLine;
using Sharpi.Prefault.Bench;

var root = new RootCommand(
    "Sharpi.Prefault benchmarks. With no command: coldstart (time to the first request per strategy, cold and warm page cache).");
ColdStartCommand.Configure(root);

var coldstart = new Command("coldstart", "Time to the first request per strategy (none, touch, willneed, prefault, reads, vmtouch) against the device's read limit.");
ColdStartCommand.Configure(coldstart);
root.Subcommands.Add(coldstart);
root.Subcommands.Add(OverlapCommand.Create());
root.Subcommands.Add(EngineCommand.Create());
root.Subcommands.Add(LLamaSharpCommand.Create());
root.Subcommands.Add(LLamaSharpCommand.CreateRow());
root.Subcommands.Add(MicroCommand.Create());
root.Subcommands.Add(FirstCallCommand.Create());

return root.Parse(args).Invoke();
