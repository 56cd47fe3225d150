namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A fact that needs a file the kernel provides (a sysfs file whose behaviour is the subject): skipped, with the
/// reason, where that file is not there.
/// </summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class SystemFileFactAttribute : FactAttribute
{
    public SystemFileFactAttribute(string path, string why)
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = $"Linux only: needs {path} ({why}).";
        }
        else if (!File.Exists(path))
        {
            Skip = $"needs {path} ({why}), and this kernel has none";
        }
    }
}
