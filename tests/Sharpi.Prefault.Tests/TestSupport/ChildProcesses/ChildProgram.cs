using System.Globalization;
using Sharpi.Prefault.Tests.Mappings;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// The test assembly's own entry point (the test SDK's generated one is turned off): <c>dotnet Sharpi.Prefault.Tests.dll
/// CASE ARGS</c> runs one library case in a child process, for what could kill the test host (a process at
/// vm.max_map_count, which the runtime answers with an abort) or needs a process of its own (a pids cgroup). The test
/// runner loads the assembly and never calls this. Each case prints what it saw as <c>key=value</c> lines, and
/// <c>done</c> last.
/// </summary>
internal static partial class ChildProgram
{
    public static int Main(string[] args)
    {
        if (args.Length == 0)
        {
            return 2;
        }

        switch (args[0])
        {
            case ChildCases.LockSplitPages:
                return LockSplitPages(args[1], int.Parse(args[2], CultureInfo.InvariantCulture));
            case ChildCases.NoThreadsLeft:
                return NoThreadsLeft(args[1], args[2], args[3]);
            case ChildCases.LockUnderMlockall:
                return LockUnderMlockall(args[1]);
            case ChildCases.TouchUnderSeccomp:
                return TouchUnderSeccomp(args[1], args[2], Enum.Parse<PrefaultStrategy>(args[3]), int.Parse(args[4], CultureInfo.InvariantCulture), args[5] == "mask-maps");
            case ChildCases.TouchAnonymousUnderSeccomp:
                return TouchAnonymousUnderSeccomp(args[1], int.Parse(args[2], CultureInfo.InvariantCulture));
            case ChildCases.TouchWithoutMemfd:
                return TouchWithoutMemfd(args[1]);
            case ChildCases.ThrowingCallback:
                return ThrowingCallback(args[1], args[2]);
            case ChildCases.FirstRunMetrics:
                return FirstRunMetrics(args[1]);
            case ChildCases.StageAtMapLimit:
                return StageAtMapLimit(args[1], int.Parse(args[2], CultureInfo.InvariantCulture), int.Parse(args[3], CultureInfo.InvariantCulture));
            case ChildCases.MeasureAndRun:
                return MeasureAndRun(args[1]);
            case ChildCases.MeasureBesideAnonymous:
                return MeasureBesideAnonymous(args[1]);
            case ChildCases.NicesDuringRun:
                return NicesDuringRun(args[1]);
            case ChildCases.HeaderParsePeak:
                return HeaderParsePeak(args[1], args[2]);
            case Platform.FifoSwapOpens.Case:
                return Platform.FifoSwapOpens.Run(args[1], args[2], int.Parse(args[3], CultureInfo.InvariantCulture));
            case ChildCases.ResidencyWithoutCachestat:
                return ResidencyWithoutCachestat(args[1], args.Length > 2 ? args[2] : null);
            default:
                Console.Error.WriteLine($"unknown case '{args[0]}'");
                return 2;
        }
    }
}

/// <summary>The cases <see cref="ChildProgram"/> runs.</summary>
internal static class ChildCases
{
    public const string HeaderParsePeak = "header-parse-peak";
    public const string LockSplitPages = "lock-split-pages";
    public const string LockUnderMlockall = "lock-under-mlockall";
    public const string NoThreadsLeft = "no-threads-left";
    public const string StageAtMapLimit = "stage-at-map-limit";
    public const string MeasureAndRun = "measure-and-run";
    public const string MeasureBesideAnonymous = "measure-beside-anonymous";
    public const string TouchUnderSeccomp = "touch-under-seccomp";
    public const string TouchAnonymousUnderSeccomp = "touch-anonymous-under-seccomp";
    public const string TouchWithoutMemfd = "touch-without-memfd";
    public const string ThrowingCallback = "throwing-callback";
    public const string FirstRunMetrics = "first-run-metrics";
    public const string NicesDuringRun = "nices-during-run";
    public const string ResidencyWithoutCachestat = "residency-without-cachestat";
}
