namespace Sharpi.Prefault.LLamaSharp;

/// <summary>One tensor of a loaded model: whether llama.cpp repacked it, and how much of its mapping is resident now.</summary>
/// <param name="Name">The tensor's name in the GGUF.</param>
/// <param name="IsRepacked">llama.cpp copied it into its own buffer at load (it no longer reads the mapping for it).</param>
/// <param name="Residency">
/// Its bytes in llama.cpp's mapping of the file and how many of them are resident (mincore): 0 bytes where nothing maps
/// the file (the read modes), fewer resident than mapped once a repacked tensor was given back.
/// </param>
public readonly record struct LLamaTensorResidency(string Name, bool IsRepacked, ResidencyInfo Residency);
