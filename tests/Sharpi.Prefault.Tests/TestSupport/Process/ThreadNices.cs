namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>The nice values of this process's threads, from /proc (Linux): what a sweep thread really runs at.</summary>
internal static class ThreadNices
{
    /// <summary>The nice values of this process's sweep threads (named "Sharpi.Prefault*", cut to 15 characters by the kernel).</summary>
    public static IEnumerable<int> OfSweepThreads()
    {
        foreach (string task in Directory.EnumerateDirectories("/proc/self/task"))
        {
            string comm;
            try
            {
                comm = File.ReadAllText(Path.Combine(task, "comm")).Trim();
            }
            catch (IOException)
            {
                continue; // the thread ended
            }

            if (comm.StartsWith("Sharpi.Prefault", StringComparison.Ordinal) && Of(task) is int nice)
            {
                yield return nice;
            }
        }
    }

    /// <summary>Field 19 of /proc/.../stat: the nice value (fields counted after the parenthesised name); null once the thread ended.</summary>
    public static int? Of(string task)
    {
        try
        {
            string stat = File.ReadAllText(task.StartsWith('/') ? Path.Combine(task, "stat") : $"/proc/{task}/stat");
            string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
            return int.Parse(fields[16], System.Globalization.CultureInfo.InvariantCulture);
        }
        catch (IOException)
        {
            return null;
        }
    }
}
