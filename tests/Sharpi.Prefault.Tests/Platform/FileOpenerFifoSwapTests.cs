using System.Globalization;
using Sharpi.Prefault.Tests.Models;

namespace Sharpi.Prefault.Tests.Platform;

/// <summary>
/// A FIFO renamed over a model file between a "regular file" check by path and the open after it blocked that open
/// until a writer appeared: PageCache.Evict, Residency.OfFile, TensorIndex.Read, MappedModel.OpenFile,
/// PageCache.WarmAsync and DirectFileReader.Open each hung within a few thousand calls. Now every open is made with
/// O_NONBLOCK and the descriptor checked (FileOpener). In a child process with a watchdog, as a hang would hang the host.
/// </summary>
public sealed class FileOpenerFifoSwapTests(ITestOutputHelper output) : IDisposable
{
    private const int Calls = 3000;
    private readonly TempModelDirectory _dir = new();

    public void Dispose() => _dir.Dispose();

    [ConditionalTheory(typeof(Requirements), nameof(Requirements.Linux))]
    [InlineData("PageCache.Evict")]
    [InlineData("Residency.OfFile")]
    [InlineData("TensorIndex.Read")]
    [InlineData("MappedModel.OpenFile")]
    [InlineData("PageCache.WarmAsync")]
    [InlineData("DirectFileReader.Open")]
    public void Api_UnderFifoRenameExchange_NeverBlocksInOpen(string api)
    {
        CliRun run = ChildProcess.Run([FifoSwapOpens.Case, _dir.Path, api, Calls.ToString(CultureInfo.InvariantCulture)], timeout: TimeSpan.FromSeconds(90));
        output.WriteLine(run.Out);
        output.WriteLine(run.Err);

        Assert.Equal(0, run.ExitCode);
        Assert.Equal(Calls.ToString(CultureInfo.InvariantCulture), ChildProcess.Value(run, "calls"));
        Assert.NotEqual("0", ChildProcess.Value(run, "swaps"));
    }
}
