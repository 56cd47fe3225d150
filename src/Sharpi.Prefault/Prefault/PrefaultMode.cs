namespace Sharpi.Prefault;

/// <summary>The operators' setting, from the <c>SHARPI_PREFAULT</c> environment variable.</summary>
public enum PrefaultMode
{
    /// <summary>Unset or <c>auto</c>: the RAM gate decides.</summary>
    Auto = 0,

    /// <summary><c>0</c>, <c>off</c> or <c>false</c>: never prefault, whatever the code asks (the kill switch).</summary>
    Off = 1,

    /// <summary><c>1</c>, <c>on</c> or <c>force</c>: prefault everything, whatever the RAM gate says.</summary>
    Force = 2,
}
