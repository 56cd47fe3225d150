using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Sharpi.Prefault;

/// <summary>
/// A prefault running in the background, started by
/// <see cref="MmapPrefault.Start(IReadOnlyList{PrefaultRegion}, PrefaultOptions?)"/> before an engine's other init
/// work so that the regions are resident by the first request.
/// </summary>
/// <remarks>
/// Disposing cancels the sweep and waits for its threads to stop: once <see cref="Dispose"/> or
/// <see cref="DisposeAsync"/> returns, nothing touches the regions, and the engine may unmap them.
/// </remarks>
public sealed class PrefaultHandle : IDisposable, IAsyncDisposable
{
    private readonly CancellationTokenSource _cancel;
    private readonly TaskCompletionSource<PrefaultResult> _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _disposed;

    internal PrefaultHandle(PrefaultRegion[] regions, PrefaultOptions options)
    {
        _cancel = CancellationTokenSource.CreateLinkedTokenSource(options.CancellationToken);
        PrefaultOptions background = options with { CancellationToken = _cancel.Token };

        // Below normal unless the caller chose: the sweep waits on the disk, and the init work it overlaps should win the CPU.
        ThreadPriority priority = options.WorkerPriority == ThreadPriority.Normal ? ThreadPriority.BelowNormal : options.WorkerPriority;
        var thread = new Thread(() => Sweep(regions, background, priority))
        {
            IsBackground = true,
            Priority = priority,
            Name = "Sharpi.Prefault background",
        };
        thread.Start();
    }

    /// <summary>Completes with the result when the regions are resident, the sweep was cancelled, or the gate skipped it. Never faults.</summary>
    public Task<PrefaultResult> Completion => _completion.Task;

    /// <summary>True once the sweep has finished (or was skipped or cancelled).</summary>
    public bool IsCompleted => _completion.Task.IsCompleted;

    /// <summary>Blocks until the sweep finishes and returns its result.</summary>
    public PrefaultResult Wait() => _completion.Task.GetAwaiter().GetResult();

    /// <summary>Blocks until the sweep finishes or <paramref name="timeout"/> passes; true when it finished.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="timeout"/> is negative (other than <see cref="Timeout.InfiniteTimeSpan"/>).</exception>
    public bool Wait(TimeSpan timeout) => _completion.Task.Wait(timeout);

    /// <summary>Waits for the result without blocking a thread.</summary>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> stopped the wait (the sweep goes on).</exception>
    public Task<PrefaultResult> WaitAsync(CancellationToken cancellationToken = default) => _completion.Task.WaitAsync(cancellationToken);

    /// <summary>Waits for the result for at most <paramref name="timeout"/>.</summary>
    /// <exception cref="TimeoutException">The sweep did not finish in time (it goes on; dispose the handle to stop it).</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> stopped the wait.</exception>
    public Task<PrefaultResult> WaitAsync(TimeSpan timeout, CancellationToken cancellationToken = default) =>
        _completion.Task.WaitAsync(timeout, cancellationToken);

    /// <summary>Asks the sweep to stop after the chunks in flight; <see cref="Completion"/> then reports <see cref="PrefaultResult.Cancelled"/>.</summary>
    public void Cancel()
    {
        if (Volatile.Read(ref _disposed) == 0)
        {
            _cancel.Cancel();
        }
    }

    /// <summary>Cancels the sweep and blocks until its threads have stopped.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        _cancel.Cancel();
        _completion.Task.GetAwaiter().GetResult();
        _cancel.Dispose();
    }

    /// <summary>Cancels the sweep and completes when its threads have stopped.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        await _cancel.CancelAsync().ConfigureAwait(false);
        await _completion.Task.ConfigureAwait(false);
        _cancel.Dispose();
    }

    private void Sweep(PrefaultRegion[] regions, PrefaultOptions options, ThreadPriority priority)
    {
        try
        {
            _completion.SetResult(MmapPrefault.Execute(regions, options, priority));
        }
#pragma warning disable CA1031 // A throw on this thread would end the process; the engine gets a result instead.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            ILogger log = options.Logger ?? NullLogger.Instance;
            Log.BackgroundFailed(log, options.Label, ex);
            _completion.SetResult(new PrefaultResult { Ran = false, Reason = $"the background prefault failed: {ex.Message}" });
        }
    }
}
