using Sharpi.Prefault;

namespace Sharpi.Prefault.Consumer;

/// <summary>
/// Every public entry point that takes regions, called the ways an engine holds them: an array, a List, an
/// IReadOnlyList (as TensorIndex, MappedModel and NativeMappings return), a span and a collection expression. Under
/// C# 12 and 13 an array was ambiguous (CS0121) between the list and span overloads until the array overloads came.
/// </summary>
internal static class OverloadResolution
{
    public static void AllShapes(PrefaultRegion region, MappedModel model)
    {
        PrefaultRegion[] array = [region];
        List<PrefaultRegion> list = [region];
        IReadOnlyList<PrefaultRegion> readOnlyList = model.Regions();
        ReadOnlySpan<PrefaultRegion> span = array;

        MmapPrefault.Run(array);
        MmapPrefault.Run(list);
        MmapPrefault.Run(readOnlyList);
        MmapPrefault.Run(span);
        MmapPrefault.Run([region, region]);
        MmapPrefault.Run(NativeMappings.OfFile("model.gguf"));

        using (MmapPrefault.Start(array)) { }
        using (MmapPrefault.Start(list)) { }
        using (MmapPrefault.Start(readOnlyList)) { }
        using (MmapPrefault.Start(span)) { }
        using (MmapPrefault.Start([region])) { }

        Residency.Measure(region);
        Residency.Measure(array);
        Residency.Measure(list);
        Residency.Measure(readOnlyList);
        Residency.Measure(span);
        Residency.Measure([region, region]);
        Residency.MeasureEach(array);
        Residency.MeasureEach(list);
        Residency.MeasureEach(readOnlyList);
        Residency.MeasureEach(span);
        Residency.MeasureEach([region, region]);

        using (MmapLock.Lock(array)) { }
        using (MmapLock.Lock(list)) { }
        using (MmapLock.Lock(readOnlyList, LockOptions.Default)) { }
        using (MmapLock.Lock(span)) { }
        using (MmapLock.Lock([region])) { }

        MmapReclaim.Release(array);
        MmapReclaim.Release(list);
        MmapReclaim.Release(readOnlyList, ReclaimOptions.Default);
        MmapReclaim.Release(span);
        MmapReclaim.Release([region]);
    }

    /// <summary>The token comes last, after the options, and may be named without them.</summary>
    public static async Task WithAToken(PrefaultRegion region, IReadOnlyList<PrefaultRegion> readOnlyList, CancellationToken cancellationToken)
    {
        PrefaultRegion[] array = [region];
        PrefaultOptions options = PrefaultOptions.Default with { Label = "engine" };

        MmapPrefault.Run(array, options, cancellationToken);
        MmapPrefault.Run(readOnlyList, options, cancellationToken);
        MmapPrefault.Run([region], cancellationToken: cancellationToken);
        MmapPrefault.Run(array.AsSpan(), null, cancellationToken);

        await using PrefaultHandle first = MmapPrefault.Start(array, options, cancellationToken);
        await using PrefaultHandle second = MmapPrefault.Start(readOnlyList, cancellationToken: cancellationToken);
        await using PrefaultHandle third = MmapPrefault.Start([region], options, cancellationToken);
        PrefaultResult result = await first.Completion.WaitAsync(cancellationToken);
        GC.KeepAlive(result);
    }
}
