namespace Sharpi.Prefault.LLamaSharp;

/// <summary>One tensor of a loaded model: whether llama.cpp repacked it, and how much of it the page cache holds now.</summary>
/// <param name="name">The tensor's name in the GGUF.</param>
/// <param name="isRepacked">llama.cpp copied it into its own buffer at load (it no longer reads the mapping for it).</param>
/// <param name="residency">Its bytes in llama.cpp's mapping of the file and how many of them the page cache holds.</param>
public readonly struct LLamaTensorResidency(string name, bool isRepacked, ResidencyInfo residency)
{
    /// <summary>The tensor's name in the GGUF.</summary>
    public string Name { get; } = name;

    /// <summary>llama.cpp copied it into its own buffer at load (it no longer reads the mapping for it).</summary>
    public bool IsRepacked { get; } = isRepacked;

    /// <summary>
    /// Its bytes in llama.cpp's mapping of the file and how many of them the page cache holds (mincore, as
    /// <see cref="Sharpi.Prefault.Residency"/> measures): 0 bytes where nothing maps the file (the read modes). A tensor
    /// given back leaves the process's RSS at once but stays cached until the kernel needs the memory.
    /// </summary>
    public ResidencyInfo Residency { get; } = residency;
}
