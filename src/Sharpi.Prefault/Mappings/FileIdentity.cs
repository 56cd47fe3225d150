namespace Sharpi.Prefault;

/// <summary>A file by device and inode (Windows: volume serial and file index), whatever path reaches it.</summary>
internal readonly record struct FileIdentity(ulong Volume, ulong Index);
