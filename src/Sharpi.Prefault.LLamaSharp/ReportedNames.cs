using System.Text;

namespace Sharpi.Prefault.LLamaSharp;

/// <summary>
/// The index's name for a tensor llama.cpp names in a log line. llama.cpp compares names as bytes, and the index holds
/// them decoded reversibly (<see cref="TensorInfo.DecodeName"/>: an invalid byte 0xNN as U+DC00+0xNN); LLamaSharp hands
/// log lines over as text already decoded, each invalid sequence as U+FFFD.
/// </summary>
internal sealed class ReportedNames
{
    private const char Replacement = '\uFFFD';

    /// <summary>Lossy form -> the index name; null where two index names share the form.</summary>
    private readonly Dictionary<string, string?> _byLossyForm = new(StringComparer.Ordinal);

    internal ReportedNames(TensorIndex? index)
    {
        if (index is null)
        {
            return;
        }

        foreach (TensorInfo tensor in index.Tensors)
        {
            string name = tensor.Name;
            if (name.AsSpan().IndexOfAnyInRange('\uDC80', '\uDCFF') < 0 && !name.Contains(Replacement, StringComparison.Ordinal))
            {
                continue; // valid UTF-8 without U+FFFD: llama.cpp's line spells it exactly
            }

            string lossy = Encoding.UTF8.GetString(TensorInfo.EncodeName(name));
            _byLossyForm[lossy] = _byLossyForm.ContainsKey(lossy) ? null : name;
        }
    }

    /// <summary>
    /// The index name llama.cpp meant by <paramref name="reported"/>: itself when it holds no U+FFFD or no index name
    /// reads like it; null where several do (which one was meant cannot be told, so none is acted on).
    /// </summary>
    internal string? Resolve(string reported) =>
        reported.Contains(Replacement, StringComparison.Ordinal) && _byLossyForm.TryGetValue(reported, out string? name) ? name : reported;
}
