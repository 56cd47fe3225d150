using Sharpi.Prefault.Bench;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>The conditions the bench's tests need (see the library tests' Requirements for the mechanism).</summary>
public static partial class Requirements
{
    /// <summary>DAMON's sysfs interface, readable (root).</summary>
    public static string? DamonSysfs
    {
        get
        {
            if (!Directory.Exists(DamonSchemes.Root))
            {
                return $"needs DAMON's sysfs interface ({DamonSchemes.Root}: not in this kernel)";
            }

            try
            {
                foreach (string state in Directory.EnumerateFiles(DamonSchemes.Root, "state", SearchOption.AllDirectories))
                {
                    _ = File.ReadAllText(state);
                }
            }
            catch (Exception e) when (e is UnauthorizedAccessException or IOException)
            {
                return $"needs to read DAMON's sysfs files (root): {e.Message}";
            }

            return null;
        }
    }
}
