namespace Sharpi.Prefault.Cli.Files;

/// <summary>
/// Why a file's residency is unknown: the kernel tells a file's page-cache residency only to a process that could open
/// it for writing (its owner, root, a writer); to anyone else cachestat refuses with EPERM and mincore reports every
/// page resident (mm/mincore.c, can_do_mincore).
/// </summary>
internal static class UnknownResidency
{
    public const string Why =
        "residency unknown: the kernel does not tell the page-cache residency of a file this user cannot write "
        + "(cachestat refuses with EPERM; mincore reports every page resident, which the tool does not believe); "
        + "run as the file's owner or root, or with write access to it, to measure it.";
}
