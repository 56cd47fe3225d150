namespace Sharpi.Prefault.LLamaSharp;

/// <summary>One tensor of a loaded model: whether llama.cpp repacked it, and how much of it the page cache holds now.</summary>
/// <param name="Name">The tensor's name in the GGUF.</param>
/// <param name="IsRepacked">llama.cpp copied it into its own buffer at load (it no longer reads the mapping for it).</param>
/// <param name="Residency">
/// Its bytes in llama.cpp's mapping of the file and how many of them the page cache holds (mincore, as
/// <see cref="Sharpi.Prefault.Residency"/> measures): 0 bytes where nothing maps the file (the read modes). A tensor
/// given back leaves the process's RSS at once but stays cached until the kernel needs the memory; a later read of it
/// costs a minor fault then, a read from the disk once it was evicted.
/// </param>
public readonly record struct LLamaTensorResidency(string Name, bool IsRepacked, ResidencyInfo Residency);
