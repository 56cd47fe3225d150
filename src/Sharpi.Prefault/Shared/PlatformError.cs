namespace Sharpi.Prefault;

/// <summary>A system call that failed: its name and the error number it set (errno or Win32, never confused).</summary>
public readonly struct PlatformError
{
    private readonly string? _call;

    private PlatformError(PlatformErrorKind kind, int code, string call)
    {
        Kind = kind;
        Code = code;
        _call = call;
    }

    /// <summary>No system call failed.</summary>
    public static PlatformError None => default;

    // Errno or Win32; None for None: a code is read only as its own platform's.
    internal PlatformErrorKind Kind { get; }

    /// <summary>The error number as the platform set it (an errno of the running Unix, or a Win32 code); 0 for <see cref="None"/>.</summary>
    public int Code { get; }

    /// <summary>The call that failed, as it is written in C (<c>madvise(MADV_POPULATE_READ)</c>, <c>mincore</c>, <c>PrefetchVirtualMemory</c>); empty for <see cref="None"/>.</summary>
    public string Call => _call ?? string.Empty;

    /// <summary>True when a system call failed.</summary>
    public bool IsError => Kind != PlatformErrorKind.None;

    /// <summary>The platform's text for <see cref="Code"/>; empty for <see cref="None"/> or another platform's code.</summary>
    public string Message => IsNative ? Marshal.GetPInvokeErrorMessage(Code) : string.Empty;

    /// <summary>The error with the call that failed: <c>madvise(MADV_POPULATE_READ): errno 14 (Bad address)</c>; <c>no error</c> for <see cref="None"/>.</summary>
    public override string ToString() => IsError && Call.Length > 0 ? $"{Call}: {Describe()}" : Describe();

    private bool IsNative => Kind == PlatformErrorKind.Win32 ? OperatingSystem.IsWindows() : Kind == PlatformErrorKind.Errno && !OperatingSystem.IsWindows();

    /// <summary>An errno <paramref name="call"/> set (Linux or macOS: the running platform's value).</summary>
    internal static PlatformError FromErrno(string call, int errno) => new(PlatformErrorKind.Errno, errno, call);

    /// <summary>A Win32 error code <paramref name="call"/> set (GetLastError).</summary>
    internal static PlatformError FromWin32(string call, int error) => new(PlatformErrorKind.Win32, error, call);

    /// <summary>The errno the last P/Invoke to <paramref name="call"/> left (SetLastError = true).</summary>
    internal static PlatformError LastErrno(string call) => FromErrno(call, Marshal.GetLastPInvokeError());

    /// <summary>The Win32 error the last P/Invoke to <paramref name="call"/> left (SetLastError = true).</summary>
    internal static PlatformError LastWin32(string call) => FromWin32(call, Marshal.GetLastPInvokeError());

    /// <summary>The number and its text, without the call: <c>errno 14 (Bad address)</c>, <c>Win32 error 87 (The parameter is incorrect.)</c>.</summary>
    internal string Describe()
    {
        string number = Kind switch
        {
            PlatformErrorKind.Errno => $"errno {Code}",
            PlatformErrorKind.Win32 => $"Win32 error {Code}",
            _ => "no error",
        };
        string text = Message;
        return text.Length > 0 ? $"{number} ({text})" : number;
    }
}
