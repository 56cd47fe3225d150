using System.Diagnostics;
using System.Globalization;
using LLama;
using LLama.Abstractions;
using LLama.Native;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Sharpi.Prefault.LLamaSharp;

/// <summary>
/// A load begun with <see cref="LLamaPrefault.Start"/>: for a read mode the page cache warm-up runs from the start;
/// <see cref="LoadAsync"/> loads the model (once).
/// </summary>
public sealed class LLamaModelLoad : IAsyncDisposable
{
    private readonly LLamaLoadOptions _options;
    private readonly CancellationTokenSource _warmCancel = new();
    private readonly Task<PageCacheWarmResult>? _warm;
    private int _loaded;
    private int _disposed;

    internal LLamaModelLoad(IModelParams parameters, LLamaLoadOptions options)
    {
        (Parameters, _options) = (parameters, options);
        if (options.IsWarmEnabled && IsReadMode(parameters.LoadMode))
        {
            _warm = PageCache.WarmAsync(parameters.ModelPath, null, _warmCancel.Token).AsTask();
        }
    }

    /// <summary>The host's parameters.</summary>
    public IModelParams Parameters { get; }

    /// <summary>True while the page cache warm-up (read modes) is still reading.</summary>
    public bool IsWarming => _warm is { IsCompleted: false };

    /// <summary>
    /// Loads the model with LLamaSharp and applies the options: the repacked tensors' pages given back (mapped modes),
    /// the tensors read in place locked (<c>MemoryMapAndLock</c>), the warm-up settled (stopped if still running).
    /// </summary>
    /// <param name="cancellationToken">Cancels LLamaSharp's load.</param>
    /// <returns>The weights and what was done; dispose it to free both.</returns>
    /// <exception cref="InvalidOperationException">This load already ran.</exception>
    public async ValueTask<LLamaLoadResult> LoadAsync(CancellationToken cancellationToken = default)
    {
        if (Interlocked.Exchange(ref _loaded, 1) != 0)
        {
            throw new InvalidOperationException("This load already ran: begin another with LLamaPrefault.Start.");
        }

        ILogger logger = _options.Logger ?? NullLogger.Instance;
        string path = Parameters.ModelPath;
        LLamaLoadMode requested = Parameters.LoadMode;
        bool mapped = requested is LLamaLoadMode.MemoryMap or LLamaLoadMode.MemoryMapAndLock;
        // The read modes map nothing, so nothing is given back or locked: their tensor table is read only if asked for.
        TensorIndex? index = mapped ? ReadIndex(path, logger) : null;
        bool linux = OperatingSystem.IsLinux() && index is not null;
        bool lockInPlace = linux && requested == LLamaLoadMode.MemoryMapAndLock && _options.IsLockInPlaceEnabled;
        bool release = linux && mapped && _options.IsReleaseEnabled;
        LLamaLoadMode mode = lockInPlace ? LLamaLoadMode.MemoryMap : requested;

        LoadCapture? capture = _options.LogTap is { } tap ? new LoadCapture(tap, index) : null;
        var progress = new LoaderProgress(_options, capture, release ? index : null, _options.IsReleaseDuringLoadEnabled);
        long started = Stopwatch.GetTimestamp();
        LLamaWeights weights;
        try
        {
            IModelParams parameters = mode == requested ? Parameters : new LoadModeOverride(Parameters, mode);
            weights = await LLamaWeights.LoadFromFileAsync(parameters, cancellationToken, progress).ConfigureAwait(false);
        }
        finally
        {
            capture?.Close();
        }

        try
        {
            return await AfterLoad(weights, path, index, requested, mode, release, lockInPlace, capture, progress, started, logger).ConfigureAwait(false);
        }
        catch
        {
            weights.Dispose(); // not the host's to free: it never got them
            throw;
        }
    }

    /// <summary>
    /// What follows LLamaSharp's load: each step best effort (a file deleted or replaced under the load, a refused
    /// lock), logged and left out of the result, never thrown: the model is loaded.
    /// </summary>
    private async ValueTask<LLamaLoadResult> AfterLoad(LLamaWeights weights, string path, TensorIndex? index, LLamaLoadMode requested, LLamaLoadMode mode,
        bool release, bool lockInPlace, LoadCapture? capture, LoaderProgress progress, long started, ILogger logger)
    {
        try
        {
            await progress.GiveBacks.ConfigureAwait(false);
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            Log.AfterLoadFailed(logger, _options.Label, "Giving back the repacked tensors' pages during the load", e.Message);
        }

        TimeSpan loadTime = Stopwatch.GetElapsedTime(started);
        (List<string> repacked, RepackSource source) = capture is { HeardTheLoad: true } ? ([.. capture.Names], RepackSource.Log)
            : index is not null && RepackRules.AreKnown ? (RepackRules.Predict(index), RepackSource.Prediction)
            : ([], RepackSource.Unknown);

        TensorMapping? mapping = progress.Mapping;
        long duringLoad = mapping?.Released ?? 0;
        if (release && repacked.Count > 0)
        {
            try
            {
                mapping = GiveBackTheRest(mapping, index!, repacked, progress.Released, logger);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or InvalidOperationException)
            {
                Log.AfterLoadFailed(logger, _options.Label, "Giving back the repacked tensors' pages", e.Message);
            }
        }

        if (mapping is not null && mapping.Released > 0 && OperatingSystem.IsLinux())
        {
            FolioFence.Apply(mapping.RegionsExcept(new HashSet<string>(repacked, StringComparer.Ordinal)));
        }

        LockLease? lease = null;
        if (lockInPlace)
        {
            try
            {
                lease = LockInPlace(ref mapping, index!, repacked, logger);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or InvalidOperationException)
            {
                // MemoryMapAndLock was loaded as MemoryMap for this lock: nothing is locked now, and the host should know.
                Log.AfterLoadFailed(logger, _options.Label, "Locking the tensors read in place (nothing is locked)", e.Message);
            }
        }

        PageCacheWarmResult? warm = await SettleWarmUp(path, logger).ConfigureAwait(false);
        long afterLoad = (mapping?.Released ?? 0) - duringLoad;
        Log.Loaded(logger, _options.Label, path, mode, loadTime.TotalSeconds, repacked.Count, source, duringLoad, afterLoad);
        return new LLamaLoadResult(weights, index, path)
        {
            RequestedLoadMode = requested,
            LoadMode = mode,
            LoadTime = loadTime,
            RepackedTensors = repacked,
            RepackSource = source,
            BytesReleasedDuringLoad = duringLoad,
            BytesReleasedAfterLoad = afterLoad,
            ReleaseCalls = mapping?.ReleaseCalls ?? 0,
            ReleaseTime = mapping?.ReleaseTime ?? TimeSpan.Zero,
            Lock = lease,
            Warm = warm,
        };
    }

    /// <summary>Stops a warm-up still running and waits for it.</summary>
    /// <returns>A task that completes when the warm-up's threads are done.</returns>
    public async ValueTask DisposeAsync()
    {
        // An await using beside an explicit dispose: only the first cancels and frees the token source, and every call
        // waits for the warm-up, as PrefaultHandle's do.
        bool first = Interlocked.Exchange(ref _disposed, 1) == 0;
        if (first)
        {
            await _warmCancel.CancelAsync().ConfigureAwait(false);
        }

        if (_warm is not null)
        {
            await _warm.ConfigureAwait(false);
        }

        if (first)
        {
            _warmCancel.Dispose();
        }
    }

    private static bool IsReadMode(LLamaLoadMode mode) => mode is LLamaLoadMode.None or LLamaLoadMode.MemoryLock;

    private TensorMapping GiveBackTheRest(TensorMapping? mapping, TensorIndex index, List<string> repacked, HashSet<string> released, ILogger logger)
    {
        mapping ??= TensorMapping.Find(index);
        try
        {
            mapping.Release(repacked.Where(n => !released.Contains(n)), _options.Label, _options.Logger);
        }
        catch (ArgumentException e)
        {
            Log.ReleaseStopped(logger, _options.Label, e.Message);
        }

        return mapping;
    }

    private LockLease? LockInPlace(ref TensorMapping? mapping, TensorIndex index, List<string> repacked, ILogger logger)
    {
        mapping ??= TensorMapping.Find(index);
        List<PrefaultRegion> inPlace = mapping.RegionsExcept(new HashSet<string>(repacked, StringComparer.Ordinal));
        LockLease lease = MmapLock.Lock(inPlace, new LockOptions { Label = _options.Label, Logger = _options.Logger });
        Log.LockedInPlace(logger, _options.Label, lease.LockedBytes, lease.RequestedBytes, lease.Decision);
        return lease;
    }

    private async ValueTask<PageCacheWarmResult?> SettleWarmUp(string path, ILogger logger)
    {
        if (_warm is null)
        {
            return null;
        }

        if (!_warm.IsCompleted)
        {
            await _warmCancel.CancelAsync().ConfigureAwait(false); // the load read the file: the rest of the warm-up is late
        }

        PageCacheWarmResult warm = await _warm.ConfigureAwait(false);
        if (logger.IsEnabled(LogLevel.Information))
        {
            // Queried only when the line is written: a host that logs nothing pays no residency query.
            string resident = ResidentNow(path);
            string stopped = warm.IsCanceled ? ", stopped when the load ended" : warm.Error is { } error ? $", {error}" : string.Empty;
            Log.Warmed(logger, _options.Label, path, warm.BytesRead, warm.FileLength, warm.Elapsed.TotalSeconds, warm.Method, stopped, resident);
        }
        return warm;
    }

    /// <summary>
    /// The file's residency when the warm-up is reported, measured then: what it read may have left the page cache
    /// since (memory pressure, or a proactive reclaimer that takes idle unmapped pages), so bytes read are no figure
    /// for what is warm now.
    /// </summary>
    private static string ResidentNow(string path)
    {
        try
        {
            ResidencyInfo now = Residency.OfFile(path);
            return now switch
            {
                { Error: { } error } => $"residency not measured: {error}",
                { IsSupported: false } => "residency not measurable on this platform",
                { UnknownBytes: > 0 } => "residency unknown to this user",
                _ => string.Create(CultureInfo.InvariantCulture, $"{now.ResidentBytes:N0} bytes ({now.Percent:0.0}%)"),
            };
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return $"residency not measured: {e.Message}";
        }
    }

    private TensorIndex? ReadIndex(string path, ILogger logger)
    {
        try
        {
            return TensorIndex.Read(path);
        }
        catch (Exception e) when (e is ModelFormatException or IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            Log.NoTensorIndex(logger, _options.Label, path, e.Message);
            return null;
        }
    }
}
