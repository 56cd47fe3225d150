namespace Sharpi.Prefault;

/// <summary>
/// What names a file whatever path reaches it: device and inode on Linux and macOS, volume serial number and file index
/// on Windows.
/// </summary>
internal readonly record struct FileIdentity(ulong Volume, ulong Index);
