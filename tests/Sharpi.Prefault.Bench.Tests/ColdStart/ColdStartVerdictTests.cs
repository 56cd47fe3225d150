using Sharpi.Prefault.Bench;

namespace Sharpi.Prefault.Bench.Tests.ColdStart;

/// <summary>The verdict's first line and its ranking, from rows as the main job summarises them.</summary>
public sealed class ColdStartVerdictTests
{
    /// <summary>A cold row whose load and first-request-done times spread over [min, max] around their median.</summary>
    private static ResultRow Row(string strategy, double done, double min, double max, int? readAheadKb = null, double? load = null) => new()
    {
        Strategy = strategy,
        Cache = "cold",
        ReadAheadKb = readAheadKb,
        Repeat = 3,
        Seconds = done,
        FirstPassSeconds = 0,
        TotalSeconds = done,
        LoadSeconds = load ?? done,
        MinLoadSeconds = load ?? min,
        MaxLoadSeconds = load ?? max,
        MinTotalSeconds = min,
        MaxTotalSeconds = max,
        GibPerSecond = 1,
        MinorFaults = 0,
        MajorFaults = 0,
        ResidentPercentBefore = 0,
        ResidentPercentAfter = 100,
    };

    [Fact]
    public void Headline_WhereThePrefaultWasDoneLater_SaysLaterAndByHowMuch() => Assert.Equal(
        "Verdict: on this machine the prefault made the first request done 2.45x LATER than no prefault (2.84 s vs 1.16 s)",
        ColdStartVerdict.Headline([Row("none", 1.16, 1.10, 1.20), Row("prefault", 2.84, 2.70, 3.00)]));

    [Fact]
    public void Headline_WhereThePrefaultWasDoneSooner_SaysSooner() => Assert.Equal(
        "Verdict: on this machine the prefault made the first request done 1.86x sooner than no prefault (0.640 s vs 1.19 s)",
        ColdStartVerdict.Headline([Row("prefault", 0.640, 0.62, 0.66), Row("none", 1.19, 1.15, 1.25)]));

    [Fact]
    public void Headline_WhereTheRepetitionsOverlap_SaysWithinNoise() => Assert.Equal(
        "Verdict: on this machine the prefault made the first request done within noise of no prefault (1.20 s vs 1.18 s; " +
        "their repetitions' min-max overlap)",
        ColdStartVerdict.Headline([Row("prefault", 1.20, 1.10, 1.30), Row("none", 1.18, 1.12, 1.40)]));

    [Fact]
    public void Headline_OfSeveralPasses_NamesEach()
    {
        string? headline = ColdStartVerdict.Headline(
        [
            Row("none", 1.16, 1.10, 1.20, 128), Row("prefault", 2.84, 2.70, 3.00, 128),
            Row("none", 1.19, 1.15, 1.25, 8192), Row("prefault", 0.640, 0.62, 0.66, 8192),
        ]);
        Assert.Equal("Verdict: on this machine the prefault made the first request done 2.45x LATER than no prefault at read_ahead_kb 128 " +
            "(2.84 s vs 1.16 s); 1.86x sooner than no prefault at read_ahead_kb 8192 (0.640 s vs 1.19 s)", headline);
    }

    [Fact]
    public void Headline_WithoutANoneRow_IsNull() => Assert.Null(ColdStartVerdict.Headline([Row("prefault", 1, 1, 1)]));

    [Fact]
    public void Build_RanksOnlyTheLibrarysAndThePlainPageCacheRows()
    {
        string verdict = ColdStartVerdict.Build(
        [
            Row("none", 1.16, 1.10, 1.20), Row("touch-1", 0.70, 0.68, 0.72), Row("willneed", 0.60, 0.58, 0.62),
            Row("prefault", 1.20, 1.15, 1.25), Row("direct-io", 0.50, 0.49, 0.51), Row("buffered-read", 6.78, 6.5, 7.0),
        ], [], string.Empty)!;
        Assert.Contains("by load: prefault 1.20 s, 4th of 4, beyond noise of the first, willneed 0.600 s; others (x prefault's): " +
            "willneed 0.50x, touch-1 0.58x, none 0.97x (noise); not ranked: direct-io 0.42x, buffered-read 5.65x", verdict, StringComparison.Ordinal);
    }

    [Fact]
    public void Build_ShowsTheCReferenceBesideTheRankingNotInIt()
    {
        string verdict = ColdStartVerdict.Build(
            [Row("none", 1.16, 1.10, 1.20), Row("prefault", 1.00, 0.95, 1.05), Row(ColdStartStrategy.CReferenceName, 0.40, 0.38, 0.42)], [], string.Empty)!;
        Assert.Contains("by load: prefault 1.00 s, first of 2; others (x prefault's): none 1.16x\n", verdict.ReplaceLineEndings("\n"), StringComparison.Ordinal);
        Assert.DoesNotContain("c-populate 0.", verdict, StringComparison.Ordinal);
        Assert.Contains("plain C mmap reference (c-populate): 0.400 s (the default's load / C's = 2.50)", verdict, StringComparison.Ordinal);
    }
}
