using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using RLimit = Interop.Libc.RLimit;

namespace Sharpi.Prefault.Tests.Interop.Unix;

/// <summary>
/// struct rlimit { rlim_t rlim_cur; rlim_t rlim_max; } (sys/resource.h): rlim_t is unsigned long on Linux and 64 bits
/// on macOS, so 16 bytes on x86-64 and arm64 with rlim_max at 8.
/// </summary>
// A layout is fixed at compile time, so it is checked on every OS; the attribute tells the platform analyzer
// that these tests are about a Unix struct.
[SupportedOSPlatform("linux")]
[SupportedOSPlatform("macos")]
public sealed class RLimitLayoutTests
{
    [Fact]
    public void RLimit_IsBlittable()
    {
        Assert.False(RuntimeHelpers.IsReferenceOrContainsReferences<RLimit>());
        Assert.Equal(Unsafe.SizeOf<RLimit>(), Marshal.SizeOf<RLimit>());
    }

    [Fact]
    public void RLimit_IsLayoutSequential()
    {
        Assert.True(typeof(RLimit).IsLayoutSequential);
    }

    [Fact]
    public void RLimit_IsTwoRlimTs()
    {
        Assert.Equal(2 * IntPtr.Size, Unsafe.SizeOf<RLimit>());
        if (IntPtr.Size == 8)
        {
            Assert.Equal(16, Unsafe.SizeOf<RLimit>());
        }
    }

    [Fact]
    public void RLimit_FieldsSitAtTheHeadersOffsets()
    {
        Assert.Equal(0, (int)Marshal.OffsetOf<RLimit>(nameof(RLimit.Current)));  // rlim_cur
        Assert.Equal(IntPtr.Size, (int)Marshal.OffsetOf<RLimit>(nameof(RLimit.Maximum))); // rlim_max: 8 on 64-bit
    }
}
