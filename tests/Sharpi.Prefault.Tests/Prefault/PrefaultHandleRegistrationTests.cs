using System.Runtime.CompilerServices;

namespace Sharpi.Prefault.Tests.Prefault;

/// <summary>
/// Handles started on one long-lived token and never disposed: the handle's link to the caller's token went away only
/// at Dispose, so each kept its linked source (~142 bytes) reachable from the token for as long as the token lived.
/// Counted with weak references after a full collection, not by measuring memory.
/// </summary>
public sealed class PrefaultHandleRegistrationTests
{
    private const int Handles = 200;

    [Fact]
    public void Start_OnALongLivedToken_NeverDisposed_LeavesNothingReachableFromTheToken_OnceComplete()
    {
        using var longLived = new CancellationTokenSource();

        WeakReference[] sources = StartAndForget(longLived.Token);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();

        Assert.Equal(0, sources.Count(s => s.IsAlive)); // was 200: each reachable from the long-lived token
        GC.KeepAlive(longLived);
    }

    [Fact]
    public async Task Start_OnATokenCancelledAfterTheSweepCompleted_StaysComplete_AndDoesNotThrow()
    {
        using var caller = new CancellationTokenSource();
        PrefaultHandle handle = MmapPrefault.Start([], cancellationToken: caller.Token);
        PrefaultResult result = await handle.Completion;

        caller.Cancel(); // the registration is gone: nothing runs, nothing throws
        handle.Dispose();

        Assert.False(result.IsCanceled);
        Assert.True(handle.Completion.IsCompleted);
    }

    [Fact]
    public async Task Start_OnACancelledToken_CompletesCancelledOrSkipped()
    {
        using var caller = new CancellationTokenSource();
        caller.Cancel();

        using PrefaultHandle handle = MmapPrefault.Start([], cancellationToken: caller.Token);

        Assert.True(handle.CancellationSource.IsCancellationRequested); // the caller's cancellation reached the sweep at once
        Assert.False((await handle.Completion).HasRun);
    }

    /// <summary>Starts the handles and waits for each, keeping nothing of them but a weak reference to each one's cancellation source.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static WeakReference[] StartAndForget(CancellationToken token)
    {
        var sources = new WeakReference[Handles];
        for (int i = 0; i < Handles; i++)
        {
            PrefaultHandle handle = MmapPrefault.Start([], cancellationToken: token);
            handle.Completion.GetAwaiter().GetResult();
            sources[i] = new WeakReference(handle.CancellationSource);
        }

        return sources;
    }
}
