using System.Globalization;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// Huge pages reserved in the kernel's hugetlb pool for one test (Linux, root): <c>vm.nr_hugepages</c> raised by the
/// pages asked for, and set back on dispose. A machine whose pool is empty gives a test no MAP_HUGETLB memory otherwise.
/// </summary>
public sealed class HugetlbPages : IDisposable
{
    private const string PoolPath = "/proc/sys/vm/nr_hugepages";

    // One reservation at a time: each sets the pool back to what it found.
    private static readonly SemaphoreSlim Gate = new(1, 1);

    private readonly long _before;

    private HugetlbPages(long before) => _before = before;

    /// <summary>The size of one huge page of the pool (meminfo Hugepagesize; 2 MiB on x86-64).</summary>
    public static long PageBytes => MeminfoValue("Hugepagesize:") * 1024;

    /// <summary>Why this machine cannot give a test huge pages, or null when it can: probed once with a real reservation.</summary>
    public static string? Unavailable => Probe.Value;

    private static readonly Lazy<string?> Probe = new(() =>
    {
        if (!OperatingSystem.IsLinux())
        {
            return "hugetlb needs Linux";
        }

        if (!File.Exists(PoolPath))
        {
            return $"this kernel has no hugetlb pool ({PoolPath} is missing)";
        }

        if (!Environment.IsPrivilegedProcess)
        {
            return $"raising {PoolPath} needs root";
        }

        try
        {
            using HugetlbPages probe = Reserve(1);
            return null;
        }
        catch (InvalidOperationException e)
        {
            return e.Message;
        }
    });

    /// <summary>Grows the pool by <paramref name="pages"/> free huge pages.</summary>
    /// <exception cref="InvalidOperationException">The kernel could not find the memory for them.</exception>
    public static HugetlbPages Reserve(int pages)
    {
        Gate.Wait();
        long before;
        try
        {
            before = Read();
            long freeBefore = Free();
            File.WriteAllText(PoolPath, (before + pages).ToString(CultureInfo.InvariantCulture));
            if (Free() < freeBefore + pages)
            {
                File.WriteAllText(PoolPath, before.ToString(CultureInfo.InvariantCulture));
                throw new InvalidOperationException($"the kernel could not find memory for {pages} more huge pages ({PoolPath} was {before})");
            }
        }
        catch
        {
            Gate.Release();
            throw;
        }

        return new HugetlbPages(before);
    }

    public void Dispose()
    {
        try
        {
            File.WriteAllText(PoolPath, _before.ToString(CultureInfo.InvariantCulture));
        }
        finally
        {
            Gate.Release();
        }
    }

    private static long Read() => long.Parse(File.ReadAllText(PoolPath).Trim(), CultureInfo.InvariantCulture);

    private static long Free() => MeminfoValue("HugePages_Free:");

    // "HugePages_Free:       1" or "Hugepagesize:       2048 kB": the number.
    private static long MeminfoValue(string key)
    {
        foreach (string line in File.ReadLines("/proc/meminfo"))
        {
            if (line.StartsWith(key, StringComparison.Ordinal))
            {
                string value = line[key.Length..].Trim();
                int space = value.IndexOf(' ', StringComparison.Ordinal);
                return long.Parse(space < 0 ? value : value[..space], CultureInfo.InvariantCulture);
            }
        }

        return 0;
    }
}
