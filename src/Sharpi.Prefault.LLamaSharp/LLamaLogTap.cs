using System.Text.RegularExpressions;
using LLama.Native;

namespace Sharpi.Prefault.LLamaSharp;

/// <summary>
/// A log callback for llama.cpp that reads the lines naming the tensors its CPU backend repacks into its own buffer
/// ("repack tensor blk.0.attn_q.weight with q4_0_8x8", at debug level) and passes every line on to the host's own
/// callback.
/// </summary>
/// <remarks>llama.cpp has one log callback per process.</remarks>
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
