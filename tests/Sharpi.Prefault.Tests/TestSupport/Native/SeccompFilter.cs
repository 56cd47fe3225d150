using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A real seccomp filter, as a hardened container profile installs one: <c>process_vm_readv</c> answers EPERM, and
/// (optionally) <c>madvise(MADV_POPULATE_READ)</c> answers EINVAL, as on a kernel older than 5.14. Installed on every
/// thread of the process at once (<c>SECCOMP_FILTER_FLAG_TSYNC</c>) and for good: only a child process installs it.
/// </summary>
[SupportedOSPlatform("linux")]
public static unsafe partial class SeccompFilter
{
    private const int PrSetNoNewPrivs = 38;
    private const uint SeccompSetModeFilter = 1;
    private const uint SeccompFilterFlagTsync = 1;
    private const uint SeccompRetAllow = 0x7fff0000;
    private const uint SeccompRetErrno = 0x00050000;
    private const uint Eperm = 1;
    private const uint Einval = 22;
    private const uint MadvPopulateRead = 22;
    private const uint Cachestat = 451; // x86-64 and the generic table (arm64) alike

    // BPF opcodes: BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, BPF_RET|BPF_K.
    private const ushort LoadWord = 0x20;
    private const ushort JumpIfEqual = 0x15;
    private const ushort Return = 0x06;

    /// <summary>Why no filter can be installed here (null where it can): an architecture this filter has no numbers for.</summary>
    public static string? Unsupported =>
        !OperatingSystem.IsLinux() ? "Linux only: seccomp filters"
        : Numbers() is null ? $"no syscall numbers for {RuntimeInformation.ProcessArchitecture} in this test's filter"
        : null;

    /// <summary>
    /// Installs the filter on every thread of this process. Refuses process_vm_readv (EPERM) and, where
    /// <paramref name="refusePopulate"/>, madvise(MADV_POPULATE_READ) (EINVAL).
    /// </summary>
    public static void Install(bool refusePopulate)
    {
        (uint arch, uint processVmReadv, uint madvise, long seccomp) = Numbers() ?? throw new PlatformNotSupportedException(Unsupported);

        // struct seccomp_data: int nr at 0, u32 arch at 4, u64 ip at 8, u64 args[6] at 16 (args[2]'s low word at 32).
        SockFilter[] program =
        [
            new(LoadWord, 0, 0, 4),                      // 0: A = arch
            new(JumpIfEqual, 0, 6, arch),                // 1: another ABI -> allow (8)
            new(LoadWord, 0, 0, 0),                      // 2: A = nr
            new(JumpIfEqual, 0, 1, processVmReadv),      // 3: not process_vm_readv -> 5
            new(Return, 0, 0, SeccompRetErrno | Eperm),  // 4
            new(JumpIfEqual, 0, 2, refusePopulate ? madvise : uint.MaxValue), // 5: not madvise -> allow (8)
            new(LoadWord, 0, 0, 32),                     // 6: A = advice (args[2], low word)
            new(JumpIfEqual, 2, 1, MadvPopulateRead),    // 7: MADV_POPULATE_READ -> 10, else -> 9
            new(Return, 0, 0, SeccompRetAllow),          // 8
            new(Return, 0, 0, SeccompRetAllow),          // 9
            new(Return, 0, 0, SeccompRetErrno | Einval), // 10
        ];
        Apply(program, seccomp);
    }

    /// <summary>
    /// Installs a filter that refuses cachestat (EPERM) and allows everything else, as a container profile written
    /// before cachestat existed, or one that denies it, does.
    /// </summary>
    public static void InstallRefusingCachestat()
    {
        InstallRefusing(Cachestat);
    }

    /// <summary>
    /// Installs a filter that refuses memfd_create (EPERM) and allows everything else, as a container profile that
    /// denies anonymous executable-capable files does.
    /// </summary>
    public static void InstallRefusingMemfdCreate()
    {
        InstallRefusing(RuntimeInformation.ProcessArchitecture == Architecture.X64 ? 319u : 279u); // memfd_create
    }

    /// <summary>Installs a filter that refuses the system call numbered <paramref name="nr"/> (EPERM) and allows everything else.</summary>
    private static void InstallRefusing(uint nr)
    {
        (uint arch, _, _, long seccomp) = Numbers() ?? throw new PlatformNotSupportedException(Unsupported);
        SockFilter[] program =
        [
            new(LoadWord, 0, 0, 4),                      // 0: A = arch
            new(JumpIfEqual, 0, 3, arch),                // 1: another ABI -> allow (5)
            new(LoadWord, 0, 0, 0),                      // 2: A = nr
            new(JumpIfEqual, 0, 1, nr),                  // 3: another call -> allow (5)
            new(Return, 0, 0, SeccompRetErrno | Eperm),  // 4
            new(Return, 0, 0, SeccompRetAllow),          // 5
        ];
        Apply(program, seccomp);
    }

    private static void Apply(SockFilter[] program, long seccomp)
    {
        if (Prctl(PrSetNoNewPrivs, 1, 0, 0, 0) != 0)
        {
            throw new InvalidOperationException($"prctl(PR_SET_NO_NEW_PRIVS) failed: errno {Marshal.GetLastPInvokeError()}");
        }

        fixed (SockFilter* filter = program)
        {
            SockFprog fprog = new() { Length = (ushort)program.Length, Filter = filter };
            if (Syscall(seccomp, SeccompSetModeFilter, SeccompFilterFlagTsync, (nint)(&fprog)) != 0)
            {
                throw new InvalidOperationException($"seccomp(SECCOMP_SET_MODE_FILTER, TSYNC) failed: errno {Marshal.GetLastPInvokeError()}");
            }
        }
    }

    /// <summary>AUDIT_ARCH, process_vm_readv, madvise and seccomp for this architecture.</summary>
    private static (uint Arch, uint ProcessVmReadv, uint Madvise, long Seccomp)? Numbers() => RuntimeInformation.ProcessArchitecture switch
    {
        Architecture.X64 => (0xC000003E, 310, 28, 317),
        Architecture.Arm64 => (0xC00000B7, 270, 233, 277),
        _ => null,
    };

    [StructLayout(LayoutKind.Sequential)]
    private readonly struct SockFilter(ushort code, byte jumpIfTrue, byte jumpIfFalse, uint k)
    {
        public readonly ushort Code = code;
        public readonly byte JumpIfTrue = jumpIfTrue;
        public readonly byte JumpIfFalse = jumpIfFalse;
        public readonly uint K = k;
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct SockFprog
    {
        public ushort Length;
        public SockFilter* Filter;
    }

    [LibraryImport(global::Interop.Libraries.Libc, EntryPoint = "prctl", SetLastError = true)]
    private static partial int Prctl(int option, nuint arg2, nuint arg3, nuint arg4, nuint arg5);

    [LibraryImport(global::Interop.Libraries.Libc, EntryPoint = "syscall", SetLastError = true)]
    private static partial nint Syscall(long number, nuint arg1, nuint arg2, nint arg3);
}
