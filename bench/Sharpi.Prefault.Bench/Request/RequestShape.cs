namespace Sharpi.Prefault.Bench;

/// <summary>What the simulated first request reads of the weights.</summary>
internal enum RequestShape
{
    /// <summary>A mixture-of-experts prefill: per layer its dense tensors and the experts the tokens' routers pick, every byte summed.</summary>
    Moe,

    /// <summary>Every tensor in layer order, every byte summed.</summary>
    Dense,

    /// <summary>One byte per page of the whole file: the fault cost alone, no compute.</summary>
    Pages,
}
