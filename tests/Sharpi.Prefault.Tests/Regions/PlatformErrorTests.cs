namespace Sharpi.Prefault.Tests.Regions;

/// <summary>
/// A failure's error says which call failed and in which numbering: 87 is ERROR_INVALID_PARAMETER on Windows and
/// EUSERS on Linux, so a Win32 code must never read as an errno, nor take the other platform's text.
/// </summary>
public sealed class PlatformErrorTests
{
    [Fact]
    public void FromWin32_IsAWin32Error_NeverAnErrno()
    {
        PlatformError error = PlatformError.FromWin32("PrefetchVirtualMemory", 87);

        Assert.Equal(PlatformErrorKind.Win32, error.Kind);
        Assert.Equal(87, error.Code);
        Assert.Equal("PrefetchVirtualMemory", error.Call);
        Assert.True(error.IsError);
        Assert.StartsWith("PrefetchVirtualMemory: Win32 error 87", error.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain("errno", error.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void LastWin32_IsAWin32Error_WhateverThePlatform()
    {
        PlatformError error = PlatformError.LastWin32("VirtualLock");

        Assert.Equal(PlatformErrorKind.Win32, error.Kind);
        Assert.Equal("VirtualLock", error.Call);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void Win32Error_OnLinux_HasNoText_ForItsNumberNamesAnotherErrorHere()
    {
        PlatformError error = PlatformError.FromWin32("PrefetchVirtualMemory", 87);

        Assert.Equal(string.Empty, error.Message);
        Assert.Equal("PrefetchVirtualMemory: Win32 error 87", error.ToString());
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void FromErrno_OnLinux_NamesTheCall_TheErrno_AndTheSystemsText()
    {
        PlatformError error = PlatformError.FromErrno("madvise(MADV_POPULATE_READ)", global::Interop.LinuxConstants.EFAULT);

        Assert.Equal(PlatformErrorKind.Errno, error.Kind);
        Assert.Equal("Bad address", error.Message);
        Assert.Equal("madvise(MADV_POPULATE_READ): errno 14 (Bad address)", error.ToString());
    }

    [Fact]
    public void None_IsTheDefault_AndNoError()
    {
        PlatformError none = PlatformError.None;

        Assert.Equal(default, none);
        Assert.False(none.IsError);
        Assert.Equal(PlatformErrorKind.None, none.Kind);
        Assert.Equal(0, none.Code);
        Assert.Equal(string.Empty, none.Call);
        Assert.Equal(string.Empty, none.Message);
        Assert.Equal("no error", none.ToString());
    }
}
