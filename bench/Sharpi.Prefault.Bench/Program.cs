using System.CommandLine;

var root = new RootCommand("Sharpi.Prefault benchmarks.");
return root.Parse(args).Invoke();
