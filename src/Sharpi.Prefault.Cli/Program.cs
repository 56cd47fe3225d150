using Sharpi.Prefault.Cli;

try
{
    using var interruption = new Interruption(CliApp.FinishesOnInterruption(args));
    using var output = StdoutWriter.OpenStandardOutput();
    // The command runs off the main thread, which only waits.
    int code = await Task.Run(() => CliApp.RunAsync(args, output, Console.Error, interruption.Token)).ConfigureAwait(false);
    return interruption.ExitCode(code);
}
#pragma warning disable CA1031 // Before the commands run (signal handlers, the console) only a message can help: no stack trace.
catch (Exception e)
#pragma warning restore CA1031
{
    // At a tiny `ulimit -n` the runtime's own setup runs out of descriptors ("Too many open files").
    Exception cause = e is TypeInitializationException { InnerException: { } inner } ? inner : e;
    try
    {
        await Console.Error.WriteLineAsync($"{CliApp.Name}: cannot start: {cause.Message}").ConfigureAwait(false);
    }
#pragma warning disable CA1031
    catch (Exception)
#pragma warning restore CA1031
    {
        // Not even stderr: the exit code is all there is.
    }

    return ExitCodes.Partial;
}
