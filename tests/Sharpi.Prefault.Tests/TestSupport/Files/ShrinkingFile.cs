using System.IO.MemoryMappedFiles;

namespace Sharpi.Prefault.Tests.TestSupport;

/// <summary>
/// A mapped file that another thread shrinks while a test sweeps it, round after round. Each round writes back the bytes
/// the last cut took (lengthened alone, the file would be a hole there, which the plan leaves out), evicts the file, and
/// starts a <see cref="Cut"/> to a random length. Seeded, so a failing race replays the same cuts.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class ShrinkingFile : IDisposable
{
    private readonly TestFile _file;
    private readonly byte[] _content;
    private readonly FileStream _stream;
    private readonly MemoryMappedFile _map;
    private readonly MemoryMappedViewAccessor _view;
    private readonly Random _random;
    private long _cutTo;

    public ShrinkingFile(long bytes, MemoryMappedFileAccess access, int seed)
    {
        _file = TestFile.Create(bytes);
        _content = File.ReadAllBytes(_file.Path);
        _stream = new FileStream(_file.Path, FileMode.Open, FileAccess.ReadWrite, FileShare.ReadWrite);
        _map = MemoryMappedFile.CreateFromFile(_stream, null, bytes, access, HandleInheritability.None, leaveOpen: true);
        _view = _map.CreateViewAccessor(0, bytes, access);
        _random = new Random(seed);
        _cutTo = bytes;
        Length = bytes;
        Region = PrefaultRegion.FromView(_view, "racing");
    }

    /// <summary>The file's full length, which each round restores.</summary>
    public long Length { get; }

    /// <summary>The whole mapping, named "racing".</summary>
    public PrefaultRegion Region { get; }

    /// <summary>
    /// Restores and evicts the file, then starts a thread that waits for <paramref name="release"/> (reset here; 10 s at
    /// most), spins a random while and cuts the file to a random length.
    /// </summary>
    public Cut StartCut(ManualResetEventSlim release)
    {
        _stream.Position = _cutTo;
        _stream.Write(_content, (int)_cutTo, (int)(Length - _cutTo));
        _stream.Flush();
        PageCache.Evict(_file.Path);
        release.Reset();
        _cutTo = _random.NextInt64(0, Length);
        return new Cut(_stream, _cutTo, _random.Next(0, 20_000), release);
    }

    public void Dispose()
    {
        _view.Dispose();
        _map.Dispose();
        _stream.Dispose();
        _file.Dispose();
    }

    /// <summary>One truncation on its own thread, which knows whether it began and ended while the sweep was running.</summary>
    public sealed class Cut
    {
        private readonly Thread _thread;
        private readonly ManualResetEventSlim _release;
        private int _running;
        private bool _duringSweep;

        internal Cut(FileStream stream, long cutTo, int spins, ManualResetEventSlim release)
        {
            _release = release;
            _thread = new Thread(() =>
            {
                release.Wait(TimeSpan.FromSeconds(10));
                Thread.SpinWait(spins);
                bool before = Volatile.Read(ref _running) == 1;
                stream.SetLength(cutTo);
                _duringSweep = before && Volatile.Read(ref _running) == 1;
            });
            _thread.Start();
        }

        /// <summary>Marks the sweep as running, until <see cref="Join"/>.</summary>
        public void SweepStarts() => Volatile.Write(ref _running, 1);

        /// <summary>Marks the sweep done, releases the cut (a sweep that never released it lets it run after) and waits for it; true when it fell inside the sweep.</summary>
        public bool Join()
        {
            Volatile.Write(ref _running, 0);
            _release.Set();
            _thread.Join();
            return _duringSweep;
        }
    }
}
