namespace Sharpi.Prefault.Tests.Platform;

/// <summary>
/// A file that opens for reading and refuses a shared mapping (the kernel's BTF in sysfs takes private read-only maps
/// only): the failure names mmap, where it read "access denied" as if the open had been refused.
/// </summary>
public sealed class MmapRefusalTests
{
    private const string Btf = "/sys/kernel/btf/vmlinux";

    [ConditionalFact(typeof(Requirements), nameof(Requirements.BtfFile))]
    public void OpenFile_OfAFileThatRefusesMmap_NamesMmapAndItsErrno()
    {
        var e = Assert.IsType<PlatformCallException>(Assert.ThrowsAny<IOException>(() => MappedModel.OpenFile(Btf)));

        Assert.Equal("mmap", e.Error.Call);
        Assert.Equal(PlatformErrorKind.Errno, e.Error.Kind);
        Assert.NotEqual(0, e.Error.Code);
        Assert.StartsWith("mmap: errno ", e.Reason, StringComparison.Ordinal);
        Assert.Contains(Btf, e.Message, StringComparison.Ordinal);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.BtfFile))]
    public void ResidencyOfFile_OfAFileThatRefusesMmap_NamesMmap()
    {
        var e = Assert.IsType<PlatformCallException>(Assert.ThrowsAny<IOException>(() => Residency.OfFile(Btf)));

        Assert.Equal("mmap", e.Error.Call);
    }

    [ConditionalFact(typeof(Requirements), nameof(Requirements.Linux))]
    public void OpenRead_OfAMissingFile_NamesOpen_AsFileNotFound()
    {
        string missing = Path.Combine(Path.GetTempPath(), $"sharpi-missing-{Guid.NewGuid():N}");

        var e = Assert.Throws<FileNotFoundException>(() => FileOpener.OpenRead(missing));

        Assert.Equal("open", Assert.IsType<PlatformCallException>(e.InnerException).Error.Call);
    }
}
