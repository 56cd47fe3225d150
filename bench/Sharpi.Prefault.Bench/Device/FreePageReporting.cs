namespace Sharpi.Prefault.Bench;

/// <summary>
/// Suspends a virtual machine's free page reporting (virtio-balloon's VIRTIO_BALLOON_F_REPORTING) for a run. With it
/// on, the pages an eviction frees are handed back to the host, and the next row's page cache lands on memory the
/// host must fault in again: on this project's Firecracker VM a cold populate after a `none` row took 1.89 s with
/// reporting on (1.9 GiB reported during the run) and 0.66 s with it off, while the O_DIRECT limits, reading into
/// buffers faulted in once, never paid it. Bare metal has no such cost, so the bench measures without it.
/// </summary>
internal static class FreePageReporting
{
    internal const string OrderPath = "/sys/module/page_reporting/parameters/page_reporting_order";

    /// <summary>Above the buddy allocator's largest order: no free block is ever large enough to be reported.</summary>
    private const int Off = 11;

    /// <summary>
    /// Turns reporting off until the returned override is disposed (or the process ends or is signalled); null where
    /// the machine has no reporting, where <paramref name="keep"/> asks to leave it on, or where it may not be changed
    /// (then a note says the rows after an eviction may pay).
    /// </summary>
    internal static SysfsOverride? Suspend(bool keep, List<string> notes, ProgressLine progress)
    {
        if (!File.Exists(OrderPath))
        {
            return null;
        }

        if (keep)
        {
            string kept = $"free page reporting left as it is (--free-page-reporting keep, page_reporting_order {File.ReadAllText(OrderPath).Trim()}): " +
                "on a VM that reports, every row after an eviction reads into memory the host must fault in again.";
            progress.Note(kept);
            notes.Add(kept);
            return null;
        }

        SysfsOverride? setting = SysfsOverride.TryCreate(OrderPath, out string? why);
        string note;
        if (setting is null)
        {
            note = $"free page reporting is on and was not suspended ({why}): rows that follow an eviction may pay host faults the limits do not.";
        }
        else
        {
            try
            {
                setting.Set(Off);
                note = $"free page reporting suspended for the run (page_reporting_order {setting.Original} -> {Off}, restored at the end): freed pages stay with the VM, as on bare metal.";
            }
            catch (Exception e) when (e is IOException or BenchException)
            {
                // Mainline kernels cap the order at MAX_PAGE_ORDER (param_set_uint_minmax), so 11 is refused there.
                try
                {
                    setting.Dispose();
                }
                catch (IOException)
                {
                    // Nothing was changed, so there is nothing to put back.
                }

                setting = null;
                note = $"free page reporting is on and was not suspended (this kernel refused page_reporting_order {Off}: {e.Message}): " +
                    "rows that follow an eviction may pay host faults the limits do not.";
            }
        }

        progress.Note(note);
        notes.Add(note);
        return setting;
    }
}
