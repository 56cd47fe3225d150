using Sharpi.Prefault.Cli;
using Sharpi.Prefault.Cli.Output;

using var interruption = new Interruption();
using var output = new StdoutWriter(Console.Out);
int code = await CliApp.RunAsync(args, output, Console.Error, interruption.Token).ConfigureAwait(false);
return interruption.ExitCode(code);
