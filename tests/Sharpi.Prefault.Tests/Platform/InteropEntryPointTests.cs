using System.Reflection;
using System.Runtime.InteropServices;

namespace Sharpi.Prefault.Tests.Platform;

/// <summary>
/// The C library functions the library binds exist on every C library it supports: glibc 2.28 (RHEL 8) and musl
/// 1.2.4 and later (Alpine 3.18, which dropped the <c>*64</c> aliases). Neither runs here, so the names are checked:
/// a missing symbol throws at the call, on a sweep thread ending the process.
/// </summary>
public sealed class InteropEntryPointTests
{
    [Fact]
    public void NoLibcImport_NamesASymbolThatGlibc228OrMusl124Lacks()
    {
        List<string> entryPoints = [.. typeof(global::Interop.Libc).GetNestedTypes(BindingFlags.NonPublic | BindingFlags.Public).Prepend(typeof(global::Interop.Libc))
            .SelectMany(t => t.GetMethods(BindingFlags.Static | BindingFlags.NonPublic | BindingFlags.Public | BindingFlags.DeclaredOnly))
            .Where(m => !OnlyFor(m, "macos")) // libSystem's names (stat$INODE64) are macOS's own
            .Select(m => (Method: m, Import: m.GetCustomAttribute<LibraryImportAttribute>()))
            .Where(x => x.Import is { LibraryName: global::Interop.Libraries.Libc })
            .Select(x => x.Import!.EntryPoint ?? x.Method.Name)];

        Assert.Contains("pread", entryPoints); // the test sees the imports at all
        Assert.DoesNotContain(entryPoints, e => e.EndsWith("64", StringComparison.Ordinal)); // musl 1.2.4 has no pread64, lseek64, sendfile64...
        Assert.DoesNotContain("gettid", entryPoints); // glibc 2.30+
    }

    private static bool OnlyFor(MethodInfo method, string platform)
    {
        string[] platforms = [.. method.GetCustomAttributes<System.Runtime.Versioning.SupportedOSPlatformAttribute>().Select(a => a.PlatformName)];
        return platforms.Length > 0 && platforms.All(p => p.StartsWith(platform, StringComparison.OrdinalIgnoreCase));
    }
}
