using Sharpi.Prefault.Cli;

using var interruption = new Interruption();
int code = await CliApp.RunAsync(args, Console.Out, Console.Error, interruption.Token).ConfigureAwait(false);
return interruption.ExitCode(code);
