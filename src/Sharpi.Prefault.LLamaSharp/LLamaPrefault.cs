using LLama.Abstractions;

namespace Sharpi.Prefault.LLamaSharp;

/// <summary>
/// Loads a model the way a LLamaSharp host does (<c>IModelParams</c> in, <c>LLamaWeights</c> out) and adds what
/// Sharpi.Prefault adds to each <c>LoadMode</c>: with <c>MemoryMap</c>, the mapped pages of the tensors llama.cpp
/// repacked into its own buffer given back during the load and after it (mmap's load at read mode's memory); with
/// <c>MemoryMapAndLock</c>, a lock of only the tensors read in place; with the read modes (<c>None</c>, the default, and
/// <c>MemoryLock</c>), the page cache warmed beside the host's other init, without the file in its RSS; and the
/// residency of every tensor afterwards (<see cref="LLamaLoadResult.MeasureResidency"/>).
/// </summary>
/// <remarks>
/// Best effort: a give-back, lock or warm-up that fails is logged and the model still loads; only LLamaSharp's own load
/// failure (<c>LoadWeightsFailedException</c>) is thrown.
/// </remarks>
public static class LLamaPrefault
{
    /// <summary>
    /// Begins a load: for a read mode, the page cache warm-up starts now, so the host's other init runs beside it. Call
    /// <see cref="LLamaModelLoad.LoadAsync"/> when the host is ready to load.
    /// </summary>
    /// <param name="parameters">The host's model parameters (its <c>ModelParams</c>), unchanged.</param>
    /// <param name="options">What to add; null for the defaults.</param>
    /// <returns>The pending load; dispose it to stop a warm-up the host no longer needs.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="parameters"/> is null.</exception>
    /// <exception cref="ArgumentException">The parameters name no model file.</exception>
    /// <exception cref="FileNotFoundException">The model file does not exist (a directory counts as none).</exception>
    /// <exception cref="IOException">A read mode's warm-up cannot open the model file: it names no regular file (a FIFO, a device), or an I/O error.</exception>
    public static LLamaModelLoad Start(IModelParams parameters, LLamaLoadOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(parameters);
        ArgumentException.ThrowIfNullOrEmpty(parameters.ModelPath, nameof(parameters));
        if (!File.Exists(parameters.ModelPath))
        {
            throw new FileNotFoundException($"The model file '{parameters.ModelPath}' does not exist.", parameters.ModelPath);
        }

        return new LLamaModelLoad(parameters, options ?? LLamaLoadOptions.Default);
    }

    /// <summary>Loads the model now: <see cref="Start"/> then <see cref="LLamaModelLoad.LoadAsync"/>.</summary>
    /// <param name="parameters">The host's model parameters (its <c>ModelParams</c>), unchanged.</param>
    /// <param name="options">What to add; null for the defaults.</param>
    /// <param name="cancellationToken">Cancels LLamaSharp's load.</param>
    /// <returns>The weights, with what was given back, locked and warmed.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="parameters"/> is null.</exception>
    /// <exception cref="ArgumentException">The parameters name no model file.</exception>
    /// <exception cref="FileNotFoundException">The model file does not exist.</exception>
    public static async ValueTask<LLamaLoadResult> LoadAsync(IModelParams parameters, LLamaLoadOptions? options = null, CancellationToken cancellationToken = default)
    {
        LLamaModelLoad load = Start(parameters, options);
        await using (load.ConfigureAwait(false))
        {
            return await load.LoadAsync(cancellationToken).ConfigureAwait(false);
        }
    }
}
