using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Bench;

internal static partial class Interop
{
    internal static partial class Libc
    {
        internal const int RUSAGE_SELF = 0;
        internal const int RUSAGE_CHILDREN = -1;

        /// <summary>Linux x64/arm64 <c>struct rusage</c>: two timevals, then fourteen longs.</summary>
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

        [LibraryImport(Libraries.Libc, EntryPoint = "getrusage", SetLastError = true)]
        internal static unsafe partial int Getrusage(int who, RUsage* usage);
    }
}
