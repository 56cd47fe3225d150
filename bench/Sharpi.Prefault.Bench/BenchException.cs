namespace Sharpi.Prefault.Bench;

/// <summary>A benchmark that cannot give a trustworthy number: the message says what is wrong and what to do.</summary>
public sealed class BenchException : Exception
{
    public BenchException()
    {
    }

    public BenchException(string message)
        : base(message)
    {
    }

    public BenchException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
