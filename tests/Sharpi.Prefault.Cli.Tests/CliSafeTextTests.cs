using Sharpi.Prefault.Cli.Output;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// Names from a model or the file system print escaped, and no two distinct names print alike: a real ESC and the
/// four characters <c>\x1b</c>, a byte that is not UTF-8 (a lone surrogate, as a byte-exact decoding gives it) and the
/// C1 control of the same number, the line and paragraph separators, U+FFFD, bidi controls.
/// </summary>
public sealed class CliSafeTextTests
{
    private static readonly string[] HostileNames =
    [
        "esc\u001b.bin", "esc\\x1b.bin", "esc\\\\x1b.bin", "esc\\u001b.bin",
        "a\u2028b", "a\\u2028b", "a\u2029b", "a\\u2029b",
        "blk.\uDCFF.w", "blk.\uDCFE.w", "blk.\\xff.w", "blk.\u00FF.w", "blk.\uFFFD.w", "blk.\\ufffd.w",
        "c1\u0085", "c1\uDC85", "c1\\x85", "c1\\u0085",
        "lone\uD800", "lone\\ud800", "lone\uDC00", "lone\\udc00", "pair\U0001F600", "pair\uD83D\uDE00x",
        "bidi\u202Eevil", "bidi\u2066x\u2069", "mark\u200E", "mark\u200F", "mark\u061C", "plain",
    ];

    [Fact]
    public void HostileNames_PrintPairwiseDistinct_WithNoRawControlOrSeparator()
    {
        string[] printed = [.. HostileNames.Select(SafeText.Escape)];

        Assert.Equal(HostileNames.Distinct(StringComparer.Ordinal).Count(), printed.Distinct(StringComparer.Ordinal).Count());
        foreach (string line in printed)
        {
            Assert.DoesNotContain(line, c => c < 0x20 || c is >= '\u007F' and <= '\u009F' or '\u2028' or '\u2029' or '\uFFFD'
                or >= '\u202A' and <= '\u202E' or >= '\u2066' and <= '\u2069' or '\u200E' or '\u200F' or '\u061C');
            Assert.True(IsWellFormed(line), $"a lone surrogate printed raw: {line}");
        }
    }

    [Fact]
    public void Escape_WritesEachKindAsDocumented()
    {
        // A table in code, not InlineData: a theory's arguments are serialized, and a lone surrogate does not survive that.
        (string Name, string Printed)[] table =
        [
            ("esc\u001b.bin", "esc\\x1b.bin"),
            ("esc\\x1b.bin", "esc\\\\x1b.bin"),
            ("a\u2028b\u2029", "a\\u2028b\\u2029"),
            ("blk.\uDCFF.w", "blk.\\xff.w"),
            ("c1\u009B", "c1\\u009b"),
            ("lone\uD800", "lone\\ud800"),
            ("pair\U0001F600", "pair\U0001F600"),
        ];

        Assert.All(table, row => Assert.Equal(row.Printed, SafeText.Escape(row.Name)));
    }

    [Fact]
    public void Json_KeepsLoneSurrogatesDistinct_AndValid()
    {
        var failures = new[] { new FailureJson("blk.\uDCFF.w", "x"), new FailureJson("blk.\uDCFE.w", "x"), new FailureJson("blk.\uFFFD.w", "x") };
        using var output = new StringWriter();

        CliJsonContext.Write(output, new ErrorJson([.. failures]), CliJsonContext.Output.ErrorJson);

        string json = output.ToString();
        Assert.True(IsWellFormed(json), "the JSON text holds a lone surrogate raw: it cannot be written as UTF-8");
        Assert.Contains("\"blk.\\udcff.w\"", json, StringComparison.Ordinal);
        Assert.Contains("\"blk.\\udcfe.w\"", json, StringComparison.Ordinal);
        Assert.Equal(3, JsonDocument.Parse("{\"ok\": " + json + "}").RootElement.GetProperty("ok").GetProperty("errors").GetArrayLength());
    }

    private static bool IsWellFormed(string text)
    {
        for (int i = 0; i < text.Length; i++)
        {
            if (char.IsHighSurrogate(text[i]) && i + 1 < text.Length && char.IsLowSurrogate(text[i + 1]))
            {
                i++;
            }
            else if (char.IsSurrogate(text[i]))
            {
                return false;
            }
        }

        return true;
    }
}
