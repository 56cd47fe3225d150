namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// Runs a child as the unprivileged user <c>nobody</c> (util-linux's <c>setpriv</c>, no supplementary groups): the
/// service user of a deployment that may read root-owned weights but not write them, for whom the kernel hides the
/// page cache (cachestat refuses with EPERM, mincore reports every page resident).
/// </summary>
internal static class Unprivileged
{
    private static readonly Lazy<(int Uid, int Gid)?> Nobody = new(FindNobody);

    /// <summary>Why no child can run as nobody here (not Linux, not root, no setpriv, no nobody user), or null.</summary>
    public static string? WhyUnavailable
    {
        get
        {
            if (!OperatingSystem.IsLinux())
            {
                return "Linux only: runs a child as the user nobody with setpriv(1).";
            }

            if (!Environment.IsPrivilegedProcess)
            {
                return "needs root: only root can start a child as another user (setpriv --reuid).";
            }

            if (!File.Exists("/usr/bin/setpriv") && !File.Exists("/bin/setpriv"))
            {
                return "needs setpriv(1) (util-linux), and there is none.";
            }

            return Nobody.Value is null ? "needs a user named nobody in /etc/passwd, and there is none." : null;
        }
    }

    /// <summary>The command line prefix that runs what follows as nobody: <c>setpriv --reuid=U --regid=G --clear-groups </c>.</summary>
    public static string Setpriv
    {
        get
        {
            (int uid, int gid) = Nobody.Value ?? throw new InvalidOperationException(WhyUnavailable);
            return $"setpriv --reuid={uid} --regid={gid} --clear-groups ";
        }
    }

    /// <summary>
    /// The command line prefix that runs what follows as root with no capability at all (an empty bounding set, so the
    /// exec grants none): a container that runs as root with its capabilities dropped.
    /// </summary>
    public static string RootWithoutCapabilities => "setpriv --inh-caps=-all --bounding-set=-all ";

    /// <summary>nobody's user id.</summary>
    public static int Uid => Nobody.Value?.Uid ?? throw new InvalidOperationException(WhyUnavailable);

    private static (int Uid, int Gid)? FindNobody()
    {
        if (!File.Exists("/etc/passwd"))
        {
            return null;
        }

        foreach (string line in File.ReadLines("/etc/passwd"))
        {
            string[] fields = line.Split(':');
            if (fields.Length > 3 && fields[0] == "nobody"
                && int.TryParse(fields[2], System.Globalization.CultureInfo.InvariantCulture, out int uid)
                && int.TryParse(fields[3], System.Globalization.CultureInfo.InvariantCulture, out int gid))
            {
                return (uid, gid);
            }
        }

        return null;
    }
}
