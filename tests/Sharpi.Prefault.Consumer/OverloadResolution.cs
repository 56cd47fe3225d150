using Sharpi.Prefault;

namespace Sharpi.Prefault.Consumer;

/// <summary>
/// Every public entry point that takes regions, called the ways an engine holds them: an array, a List, an
/// IReadOnlyList (as TensorIndex, MappedModel and NativeMappings return), a collection expression, and a span through
/// ToArray. Each takes one shape, IReadOnlyList, so no argument can be ambiguous (CS0121) under any C# version.
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
        MmapPrefault.Run(span.ToArray());
        MmapPrefault.Run([region, region]);
        MmapPrefault.Run(NativeMappings.OfFile("model.gguf"));

        using (MmapPrefault.Start(array)) { }
        using (MmapPrefault.Start(list)) { }
        using (MmapPrefault.Start(readOnlyList)) { }
        using (MmapPrefault.Start(span.ToArray())) { }
        using (MmapPrefault.Start([region])) { }

        Residency.Measure(region);
        Residency.Measure(array);
        Residency.Measure(list);
        Residency.Measure(readOnlyList);
        Residency.Measure(span.ToArray());
        Residency.Measure([region, region]);
        Residency.MeasureEach(array);
        Residency.MeasureEach(list);
        Residency.MeasureEach(readOnlyList);
        Residency.MeasureEach(span.ToArray());
        Residency.MeasureEach([region, region]);

        using (MmapLock.Lock(array)) { }
        using (MmapLock.Lock(list)) { }
        using (MmapLock.Lock(readOnlyList, new LockOptions())) { }
        using (MmapLock.Lock(span.ToArray())) { }
        using (MmapLock.Lock([region])) { }

        MmapReclaim.Release(array);
        MmapReclaim.Release(list);
        MmapReclaim.Release(readOnlyList, new ReclaimOptions());
        MmapReclaim.Release(span.ToArray());
        MmapReclaim.Release([region]);
    }

    /// <summary>The token comes last, after the options, and may be named without them.</summary>
    public static async Task WithAToken(PrefaultRegion region, IReadOnlyList<PrefaultRegion> readOnlyList, CancellationToken cancellationToken)
    {
        PrefaultRegion[] array = [region];
        PrefaultOptions options = new PrefaultOptions { Label = "engine" };

        MmapPrefault.Run(array, options, cancellationToken);
        MmapPrefault.Run(readOnlyList, options, cancellationToken);
        MmapPrefault.Run([region], cancellationToken: cancellationToken);
        MmapPrefault.Run(array.AsSpan().ToArray(), null, cancellationToken);

        await using PrefaultHandle first = MmapPrefault.Start(array, options, cancellationToken);
        await using PrefaultHandle second = MmapPrefault.Start(readOnlyList, cancellationToken: cancellationToken);
        await using PrefaultHandle third = MmapPrefault.Start([region], options, cancellationToken);
        PrefaultResult result = await first.Completion.WaitAsync(cancellationToken);
        GC.KeepAlive(result);
    }
}
