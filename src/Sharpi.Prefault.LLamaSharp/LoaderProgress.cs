using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Sharpi.Prefault.LLamaSharp;

/// <summary>
/// The progress reporter handed to <c>LLamaWeights.LoadFromFileAsync</c>: llama.cpp calls it on the loader thread
/// before its first tensor (the file is mapped by then) and after each one.
/// </summary>
internal sealed class LoaderProgress(LLamaLoadOptions options, LoadCapture? capture, TensorIndex? index, bool releaseDuringLoad) : IProgress<float>
{
    private readonly ILogger _logger = options.Logger ?? NullLogger.Instance;
    private readonly List<string> _pending = [];
    private bool _started;
    private volatile bool _releasing = releaseDuringLoad && capture is not null && index is not null;
    private int _seen;
    private long _pendingBytes;
    private Task _giveBacks = Task.CompletedTask;

    /// <summary>The tensors' places in the mapping, found at the first call; null where the load gives nothing back while it runs.</summary>
    internal TensorMapping? Mapping { get; private set; }

    /// <summary>The repacked tensors handed to a give-back while the load ran (read once <see cref="GiveBacks"/> completed).</summary>
    internal HashSet<string> Released { get; } = new(StringComparer.Ordinal);

    /// <summary>The give-backs started during the load, in order; completes when the last is done (it never faults).</summary>
    internal Task GiveBacks => _giveBacks;

    public void Report(float value)
    {
        try
        {
            if (!_started)
            {
                _started = true;
                if (capture is not null)
                {
                    LLamaLogTap.Bind(capture);
                }

                if (_releasing)
                {
                    Mapping = TensorMapping.Find(index!);
                    _releasing = !Mapping.IsEmpty;
                }
            }
            else if (_releasing)
            {
                TakeFinished();
                if (_pendingBytes >= options.ReleaseBatchBytes || (value >= 1f && _pending.Count > 0))
                {
                    string[] batch = [.. _pending];
                    Released.UnionWith(batch);
                    _pending.Clear();
                    _pendingBytes = 0;
                    _giveBacks = _giveBacks.ContinueWith(_ => GiveBack(batch), CancellationToken.None, TaskContinuationOptions.None, TaskScheduler.Default);
                }
            }
        }
        catch (Exception e)
        {
            // The mapping not found, a file unreadable: stop giving back, never fail the load.
            Stop(e);
        }

        options.Progress?.Report(value);
    }

    private void GiveBack(string[] batch)
    {
        if (!_releasing)
        {
            return;
        }

        try
        {
            Mapping!.Release(batch, options.Label, options.Logger);
        }
        catch (Exception e)
        {
            // A region MmapReclaim refused (the mapping changed under the load): stop, and leave the rest to after the load.
            Stop(e);
        }
    }

    private void Stop(Exception e)
    {
        _releasing = false;
        Log.ReleaseStopped(_logger, options.Label, $"{e.GetType().Name}: {e.Message}");
    }

    private void TakeFinished()
    {
        IReadOnlyList<string> names = capture!.Names;
        for (; _seen < capture.Count; _seen++)
        {
            _pending.Add(names[_seen]);
            _pendingBytes += Mapping!.Bytes(names[_seen]);
        }
    }
}
