using System.CommandLine;

var root = new RootCommand("sharpi-prefault: tensor-aware prefault and residency of model files.");
return root.Parse(args).Invoke();
