using System.Diagnostics.CodeAnalysis;

// StrideSweep populates only when PopulateSupport's probe succeeded, and the probe runs on Linux alone, so its
// madvise(MADV_POPULATE_READ) never runs elsewhere. The analyzer cannot follow that through the _populate flag.
// StrideSweep.cs belongs to the sweep's owner: once its Populate (or the class) carries [SupportedOSPlatform("linux")],
// delete this suppression.
[assembly: SuppressMessage("Interoperability", "CA1416:Validate platform compatibility",
    Justification = "Populate runs only after PopulateSupport probed MADV_POPULATE_READ on Linux.",
    Scope = "member", Target = "~M:Sharpi.Prefault.StrideSweep.Populate(System.IntPtr,System.IntPtr,System.Int32)~System.Boolean")]
