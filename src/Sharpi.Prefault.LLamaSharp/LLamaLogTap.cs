using System.Text.RegularExpressions;
using LLama.Native;

namespace Sharpi.Prefault.LLamaSharp;

/// <summary>
/// A log callback for llama.cpp that reads the lines naming the tensors its CPU backend repacks into its own buffer
/// ("repack tensor blk.0.attn_q.weight with q4_0_8x8", at debug level) and passes every line on to the host's own
/// callback. With it, <see cref="LLamaPrefault"/> knows exactly which tensors were copied as the load copies them, and
/// gives their mapped pages back during the load; without it, it predicts them from the GGUF's tensor types and this
/// CPU's repack rules, and gives them back after the load.
/// </summary>
/// <remarks>
/// llama.cpp has one log callback per process. Register the tap's <see cref="Callback"/> where the host would register
/// its own (<c>NativeLibraryConfig.All.WithLogCallback(tap.Callback)</c> before the native library loads, or
/// <see cref="Install"/> after), with the host's callback as <c>forward</c>, and pass the tap in
/// <see cref="LLamaLoadOptions.LogTap"/>. A load tells whether the tap was live: a host that replaced the callback later
/// gets the prediction, never a wrong list. The callback runs on llama.cpp's threads; it keeps nothing but the names of
/// the loads running on the thread that logs them.
/// </remarks>
public sealed partial class LLamaLogTap
{
    [ThreadStatic]
    private static LoadCapture? t_capture;

    private readonly NativeLogConfig.LLamaLogCallback? _forward;
    private long _lines;

    /// <summary>A tap that passes every line to <paramref name="forward"/> (none: the lines go nowhere else).</summary>
    /// <param name="forward">The host's own log callback, or null.</param>
    public LLamaLogTap(NativeLogConfig.LLamaLogCallback? forward = null)
    {
        _forward = forward;
        Callback = OnLog;
    }

    /// <summary>The callback to register with LLamaSharp (kept alive by the tap).</summary>
    public NativeLogConfig.LLamaLogCallback Callback { get; }

    /// <summary>Lines received so far, from every thread.</summary>
    internal long Lines => Interlocked.Read(ref _lines);

    /// <summary>
    /// Makes a new tap llama.cpp's log callback now (<c>NativeLogConfig.llama_log_set</c>), passing every line on to
    /// <paramref name="forward"/>.
    /// </summary>
    /// <param name="forward">The host's own log callback, or null.</param>
    /// <returns>The tap, for <see cref="LLamaLoadOptions.LogTap"/>.</returns>
    public static LLamaLogTap Install(NativeLogConfig.LLamaLogCallback? forward = null)
    {
        var tap = new LLamaLogTap(forward);
        NativeLogConfig.llama_log_set(tap.Callback);
        return tap;
    }

    /// <summary>Starts collecting this thread's repack lines into <paramref name="capture"/> (the loader thread, from the load's first progress call).</summary>
    internal static void Bind(LoadCapture capture) => t_capture = capture;

    private void OnLog(LLamaLogLevel level, string message)
    {
        Interlocked.Increment(ref _lines);
        if (t_capture is { } capture)
        {
            if (capture.IsClosed)
            {
                t_capture = null;
            }
            else if (ReferenceEquals(capture.Tap, this) && RepackLine().Match(message) is { Success: true } m)
            {
                capture.Add(m.Groups[1].Value);
            }
        }

        _forward?.Invoke(level, message);
    }

    // ggml-cpu's repack.cpp: "%s: repack tensor %s with %s_%dx%d\n".
    [GeneratedRegex(@"repack tensor (\S+) with ", RegexOptions.CultureInvariant)]
    private static partial Regex RepackLine();
}
