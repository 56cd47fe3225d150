using System.Runtime.InteropServices;
using System.Runtime.Versioning;

// The global Interop class, as in the library, so the linked library files and this one form one Interop.Libc.
internal static partial class Interop
{
    internal static partial class Libc
    {
        internal const int RUSAGE_SELF = 0;
        internal const int RUSAGE_CHILDREN = -1;

        /// <summary>Linux x64/arm64 <c>struct rusage</c>: two timevals, then fourteen longs.</summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [StructLayout(LayoutKind.Sequential)]
        internal struct RUsage
        {
            public long UserSeconds;
            public long UserMicroseconds;
            public long SystemSeconds;
            public long SystemMicroseconds;
            public long MaxResidentKilobytes;
            public long SharedText;
            public long UnsharedData;
            public long UnsharedStack;
            public long MinorFaults;
            public long MajorFaults;
            public long Swaps;
            public long BlockInputs;
            public long BlockOutputs;
            public long MessagesSent;
            public long MessagesReceived;
            public long Signals;
            public long VoluntarySwitches;
            public long InvoluntarySwitches;
        }

        /// <summary>int getrusage(int who, struct rusage *usage); Linux and macOS.</summary>
        [SupportedOSPlatform("linux")]
        [SupportedOSPlatform("macos")]
        [LibraryImport(Libraries.Libc, EntryPoint = "getrusage", SetLastError = true)]
        internal static unsafe partial int Getrusage(int who, RUsage* usage);
    }
}
