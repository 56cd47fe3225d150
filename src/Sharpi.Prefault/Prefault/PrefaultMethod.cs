namespace Sharpi.Prefault;

/// <summary>How pages were brought in.</summary>
public enum PrefaultMethod
{
    /// <summary>Nothing ran (skipped by the gate, or no regions).</summary>
    None = 0,

    /// <summary>
    /// Linux <c>madvise(MADV_POPULATE_READ)</c> over page-aligned chunks taken in the order given, after
    /// <c>MADV_HUGEPAGE</c> on the file mappings. Each 2 MiB span is then sampled (one page in 16 read through the
    /// kernel, timed) and read whole where the sample was slow: on a virtual machine whose host has not mapped the
    /// memory yet, so the host's first-access faults are paid in the prefault and not in the engine's first request.
    /// </summary>
    Populate = 1,

    /// <summary>
    /// A parallel per-page stride touch (one byte per page and each region's last byte), after the OS read-ahead
    /// hint where the platform has a useful one (macOS <c>MADV_WILLNEED</c>, Windows <c>PrefetchVirtualMemory</c>).
    /// On Linux each read goes through the kernel (<c>process_vm_readv</c>). Where that is refused (a seccomp filter),
    /// a file mapping's bytes are read through the file instead (<c>pread</c>): they land in the page cache and the
    /// engine's first access maps them with a minor fault, since a load from a file mapping could fault fatally
    /// (SIGBUS) if the file shrank; memory of no file is read through <c>/proc/self/mem</c>, since another thread may
    /// unmap it meanwhile (SIGSEGV).
    /// </summary>
    Touch = 2,

    /// <summary>Only the OS read-ahead hint was issued; residency is not guaranteed.</summary>
    Hint = 3,
}
