using System.Globalization;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>A thread's nice value and scheduling policy as the kernel has them (Linux, /proc/.../stat).</summary>
public static class ThreadScheduling
{
    /// <summary>SCHED_OTHER, the default policy.</summary>
    public const int Other = 0;

    /// <summary>The calling thread's (from /proc/thread-self/stat).</summary>
    public static (int Nice, int Policy) OfCurrent() => Of("/proc/thread-self") ?? throw new InvalidOperationException("/proc/thread-self/stat unreadable");

    /// <summary>The calling thread's /proc/self/task/TID folder (its id is the first field of /proc/thread-self/stat).</summary>
    public static string CurrentTask() => "/proc/self/task/" + File.ReadAllText("/proc/thread-self/stat").Split(' ')[0];

    /// <summary>
    /// The thread's at <paramref name="task"/> (a /proc/self/task/TID folder), or null once it has ended. Fields
    /// counted after the parenthesised name: 19 is the nice value, 41 the policy.
    /// </summary>
    public static (int Nice, int Policy)? Of(string task)
    {
        try
        {
            string stat = File.ReadAllText(Path.Combine(task, "stat"));
            string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
            return (int.Parse(fields[16], CultureInfo.InvariantCulture), int.Parse(fields[38], CultureInfo.InvariantCulture));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null; // the thread ended
        }
    }

    /// <summary>The tasks of this process whose kernel name starts with <paramref name="prefix"/> (names are cut to 15 bytes).</summary>
    public static IEnumerable<(string Task, int Nice, int Policy)> Named(string prefix)
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

            if (comm.StartsWith(prefix, StringComparison.Ordinal) && Of(task) is (int nice, int policy))
            {
                yield return (task, nice, policy);
            }
        }
    }
}
