using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Sharpi.Prefault;

/// <summary>A prefault running in the background.</summary>
/// <remarks>Once <see cref="Dispose"/> returns, nothing touches the regions and they may be unmapped.</remarks>
public sealed class PrefaultHandle : IDisposable, IAsyncDisposable
{
    private readonly CancellationTokenSource _cancel = new();
    private readonly CancellationTokenRegistration _callerRegistration;
    private readonly TaskCompletionSource<PrefaultResult> _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Thread _thread;
    private readonly RegionReadiness _readiness;
    private int _disposed;
    private bool _disposedBySweep; // the sweep's own thread only

    internal PrefaultHandle(PrefaultRegion[] regions, PrefaultOptions options, CancellationToken cancellationToken)
    {
        // Not linked: the sweep unregisters, so a long-lived token keeps no handle alive.
        _readiness = new RegionReadiness(regions.Length);
        _callerRegistration = cancellationToken.UnsafeRegister(static handle => ((PrefaultHandle)handle!).Cancel(), this);

        SweepThreads threads = SweepThreads.ForStart(options);
        var thread = new Thread(() =>
        {
            WorkerPriority.ApplyToCurrentThread(threads.Priority);
            Sweep(regions, options, threads);
        })
        {
            IsBackground = true,
            Name = "Sharpi.Prefault background",
        };
        _thread = thread;
        try
        {
            thread.Start();
        }
        catch (OutOfMemoryException)
        {
            // At the pids limit: a prefault never fails a load.
            _thread = Thread.CurrentThread;
            Log.BackgroundThreadUnavailable(options.Logger ?? NullLogger.Instance, options.Label);
            Sweep(regions, options, SweepThreads.ForRun(options) with { Priority = ThreadPriority.Normal });
        }
    }

    /// <summary>Completes with the result. Never faults.</summary>
    public Task<PrefaultResult> Completion => _completion.Task;

    /// <summary>Completes when the sweep is done with region <paramref name="regionIndex"/>. Never faults.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="regionIndex"/> is out of range.</exception>
    public Task WhenReady(int regionIndex)
    {
        ThrowHelper.ThrowIfIndexOutOfRange(regionIndex, _readiness.Count);
        return _readiness.WhenReady(regionIndex);
    }

    /// <summary>Asks the sweep to stop after the chunks in flight.</summary>
    public void Cancel()
    {
        if (Volatile.Read(ref _disposed) != 0)
        {
            return;
        }

        try
        {
            _cancel.Cancel();
        }
        catch (ObjectDisposedException)
        {
            // Another thread's Dispose cancelled it already.
        }
    }

    /// <summary>Tests check nothing outside the handle keeps it.</summary>
    internal CancellationTokenSource CancellationSource => _cancel;

    /// <summary>Cancels the sweep and blocks until its threads stop.</summary>
    public void Dispose()
    {
        bool first = Interlocked.Exchange(ref _disposed, 1) == 0;
        if (first)
        {
            _cancel.Cancel();
        }

        if (Thread.CurrentThread == _thread && !_completion.Task.IsCompleted)
        {
            // From a progress callback: waiting would wait on itself.
            _disposedBySweep |= first;
            return;
        }

        _completion.Task.GetAwaiter().GetResult();
        if (first)
        {
            _cancel.Dispose();
        }
    }

    /// <summary>Cancels the sweep and completes when its threads stop.</summary>
    public async ValueTask DisposeAsync()
    {
        bool first = Interlocked.Exchange(ref _disposed, 1) == 0;
        bool onSweepThread = Thread.CurrentThread == _thread && !_completion.Task.IsCompleted; // before the await
        if (onSweepThread)
        {
            _disposedBySweep |= first; // on the sweep's thread, as in Dispose
        }

        if (first)
        {
            await _cancel.CancelAsync().ConfigureAwait(false);
        }

        if (onSweepThread)
        {
            return;
        }

        await _completion.Task.ConfigureAwait(false);
        if (first)
        {
            _cancel.Dispose();
        }
    }

    private void Sweep(PrefaultRegion[] regions, PrefaultOptions options, SweepThreads threads)
    {
        PrefaultResult result;
        try
        {
            result = MmapPrefault.Execute(regions, options, threads, _readiness, _cancel.Token);
        }
#pragma warning disable CA1031 // A throw on this thread would end the process.
        catch (Exception ex)
#pragma warning restore CA1031
        {
            result = MmapPrefault.Failed(options, ex, background: true);
        }
        finally
        {
            // Every region is ready before the result is.
            _readiness.CompleteAll();

            _callerRegistration.Unregister();
        }

        _completion.SetResult(result);
        if (_disposedBySweep)
        {
            _cancel.Dispose();
        }
    }
}
