internal static partial class Interop
{
    internal static partial class Libc
    {
        /// <summary>uid_t geteuid(void); never fails.</summary>
        [LibraryImport(Libraries.Libc, EntryPoint = "geteuid")]
        internal static partial uint Geteuid();
    }
}
