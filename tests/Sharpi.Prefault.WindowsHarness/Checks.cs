namespace Sharpi.Prefault.WindowsHarness;

/// <summary>One line per check: "PASS name" or "FAIL name: why"; the totals for the last line.</summary>
internal sealed class Checks
{
    internal int Passed { get; private set; }

    internal int Failed { get; private set; }

    internal void Check(string name, bool ok, string detail)
    {
        if (ok)
        {
            Pass(name, detail);
        }
        else
        {
            Fail(name, detail);
        }
    }

    internal void Pass(string name, string detail)
    {
        Passed++;
        Console.WriteLine($"PASS {name} ({detail})");
    }

    internal void Fail(string name, string why)
    {
        Failed++;
        Console.WriteLine($"FAIL {name}: {why}");
    }

    /// <summary>Runs <paramref name="body"/> as one check: an exception fails it with the exception's text.</summary>
    internal void Run(string name, Func<(bool Ok, string Detail)> body)
    {
        try
        {
            (bool ok, string detail) = body();
            Check(name, ok, detail);
        }
        catch (Exception e)
        {
            Fail(name, $"{e.GetType().Name}: {e.Message}");
        }
    }
}
