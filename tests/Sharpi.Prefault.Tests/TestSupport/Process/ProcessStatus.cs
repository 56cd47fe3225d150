using System.Globalization;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>Reads this process's memory figures from /proc (Linux).</summary>
public static class ProcessStatus
{
    /// <summary>A field of /proc/self/status in bytes (for example "RssFile" or "VmLck").</summary>
    public static long ReadStatusBytes(string field)
    {
        foreach (string line in File.ReadLines("/proc/self/status"))
        {
            if (line.StartsWith(field + ":", StringComparison.Ordinal))
            {
                string[] parts = line[(field.Length + 1)..].Split([' ', '\t'], StringSplitOptions.RemoveEmptyEntries);
                return long.Parse(parts[0], CultureInfo.InvariantCulture) * 1024;
            }
        }

        throw new InvalidOperationException($"/proc/self/status has no {field} line.");
    }

    public static long RssFileBytes => ReadStatusBytes("RssFile");

    /// <summary>Major and minor page faults of this process so far (getrusage RUSAGE_SELF).</summary>
    public static (long Minor, long Major) PageFaults()
    {
        // Fields 10 (minflt) and 12 (majflt) of /proc/self/stat, counted after the ")" that ends the command name.
        string stat = File.ReadAllText("/proc/self/stat");
        string[] f = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        return (long.Parse(f[7], CultureInfo.InvariantCulture), long.Parse(f[9], CultureInfo.InvariantCulture));
    }
}
