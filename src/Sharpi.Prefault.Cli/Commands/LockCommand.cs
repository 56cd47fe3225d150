using System.CommandLine;
using Sharpi.Prefault.Cli.Files;
using Sharpi.Prefault.Cli.Output;

namespace Sharpi.Prefault.Cli.Commands;

/// <summary>
/// <c>lock</c>: prefault, then hold the pages locked until interrupted, like <c>vmtouch -l</c>: keeps a model hot
/// through page-cache pressure from other processes while an engine (mapping the same file) serves.
/// </summary>
internal static class LockCommand
{
    public static Command Create()
    {
        Argument<string[]> files = CommonOptions.Files();
        Option<string[]> tensor = CommonOptions.Tensor();
        Option<string[]> exclude = CommonOptions.Exclude();
        var command = new Command("lock", "Prefault FILEs (or the selected tensors) and hold their pages locked in memory until Ctrl+C or SIGTERM.")
        {
            files, tensor, exclude,
        };

        // System.CommandLine cancels the token on Ctrl+C and SIGTERM: that is the signal to unlock and exit.
        command.SetAction((parse, cancellationToken) => RunAsync(
            CliContext.From(parse), parse.GetRequiredValue(files), CommonOptions.Filter(parse, tensor, exclude), cancellationToken));
        return command;
    }

    private static async Task<int> RunAsync(CliContext context, string[] paths, TensorFilter filter, CancellationToken cancellationToken)
    {
        List<FileTarget> targets = Targets.Resolve(context, paths, filter, readModels: false);
        using FileMappings mappings = FileMappings.Open(context, targets);
        var regions = new List<PrefaultRegion>();
        foreach (FileMapping mapping in mappings.Items)
        {
            regions.AddRange(mapping.Regions(tensorsOnly: filter.NamesTensors));
        }

        if (regions.Count == 0)
        {
            return context.ExitCode;
        }

        // Prefault first, in parallel: mlock would fault the pages in one by one on this thread.
        TouchCommand.Prefault(context, regions, RamGate.Always, cancellationToken);

        using LockLease lease = MmapLock.Lock(regions, LockOptions.Default with { Label = CliApp.Name });
        foreach (RegionFailure failure in lease.Failures)
        {
            context.Fail(failure.Name, failure.Message);
        }

        if (lease.LockedBytes == 0)
        {
            await context.Err.WriteLineAsync($"{CliApp.Name}: nothing locked.").ConfigureAwait(false);
            return ExitCodes.Partial;
        }

        await context.Out.WriteLineAsync(
            $"locked {ByteSize.Format(lease.LockedBytes)} of {ByteSize.Format(lease.RequestedBytes)} in {mappings.Items.Count} file(s); holding until Ctrl+C or SIGTERM").ConfigureAwait(false);
        await context.Out.FlushAsync(CancellationToken.None).ConfigureAwait(false);
        try
        {
            await Task.Delay(Timeout.Infinite, cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            // The expected way out.
        }

        lease.Dispose();
        await context.Out.WriteLineAsync($"unlocked {ByteSize.Format(lease.LockedBytes)}").ConfigureAwait(false);
        return context.ExitCode;
    }
}
