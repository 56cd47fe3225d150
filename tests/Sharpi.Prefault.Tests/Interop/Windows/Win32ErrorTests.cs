namespace Sharpi.Prefault.Tests.Interop.Windows;

/// <summary>Win32 error codes are named as such, never as errno: 87 is ERROR_INVALID_PARAMETER on Windows, EBADR on Linux.</summary>
public sealed class Win32ErrorTests
{
    [Fact]
    public void Describe_NamesTheCodeAsAWin32Error()
    {
        string text = Win32Error.Describe(87);

        Assert.StartsWith("Win32 error 87 (", text, StringComparison.Ordinal);
        Assert.EndsWith(")", text, StringComparison.Ordinal);
        Assert.DoesNotContain("errno", text, StringComparison.Ordinal);
    }
}
