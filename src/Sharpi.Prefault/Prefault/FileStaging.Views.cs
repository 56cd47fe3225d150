namespace Sharpi.Prefault;

internal sealed unsafe partial class FileStaging
{
    /// <summary>Applies the deferred advice and views, once; views only within vm.max_map_count, past which the runtime aborts.</summary>
    internal void Commit()
    {
        if (_committed || !OperatingSystem.IsLinux())
        {
            _committed = true;
            return;
        }

        _committed = true;
        for (int i = 0; i < _maps.Length; i++)
        {
            if (_adviseLater[i] && HugePageAdvice.Advise(_maps[i]))
            {
                HugePageAdvisedBytes += _maps[i].End - _maps[i].Start;
                _advised[i] = true;
            }
        }

        if (_viewSpans is not null)
        {
            MappingRoom room = MappingRoom.Current();
            foreach (((string path, long inode), (long start, long end)) in _viewSpans)
            {
                if (!room.TryTake(1))
                {
                    break;
                }

                MapView(path, inode, start, end);
            }
        }

        if (ViewCount > 0 || ExactMappingCount > 0)
        {
            Log.StagedFileReads(_log, _label, ViewCount, ViewBytes, ExactMappingCount);
        }
    }

    public void Dispose()
    {
        if (_views is null)
        {
            return;
        }

        if (OperatingSystem.IsLinux())
        {
            foreach ((nint address, nuint length) in _views)
            {
                _ = Interop.Libc.Munmap((void*)address, length);
            }
        }

        _views.Clear();
    }

    /// <summary>A read-only, huge-page view of the file under its writable mappings; nothing when the file is gone or refused.</summary>
    private void MapView(string path, long inode, long start, long end)
    {
        if (!OperatingSystem.IsLinux())
        {
            return;
        }

        using SafeFileHandle? file = FileCacheProbe.OpenIfSameFile(path, inode);
        if (file is null)
        {
            return;
        }

        long viewEnd;
        try
        {
            viewEnd = Math.Min(end, Pages.Ceiling(RandomAccess.GetLength(file)));
        }
        catch (IOException)
        {
            return;
        }

        if (viewEnd <= start)
        {
            return;
        }

        void* mapped = Interop.Libc.Mmap(null, (nuint)(viewEnd - start), Interop.LinuxConstants.PROT_READ, Interop.LinuxConstants.MAP_SHARED, file, start);
        if (mapped == (void*)-1)
        {
            return;
        }

        nint view = (nint)mapped;
        _ = Interop.Libc.Madvise(mapped, (nuint)(viewEnd - start), Interop.LinuxConstants.MADV_HUGEPAGE);
        (_views ??= []).Add((view, (nuint)(viewEnd - start)));
        ViewBytes += viewEnd - start;
        for (int i = 0; i < _maps.Length; i++)
        {
            ProcMapEntry m = _maps[i];
            if (m.Writable && m.Inode == inode && m.Offset >= start && m.Offset < viewEnd && !_exact[i]
                && string.Equals(m.Path, path, StringComparison.Ordinal))
            {
                _viewDelta[i] = view + (nint)(m.Offset - start) - m.Start;
                _stagedEnd[i] = m.Start + (nint)Math.Min(m.End - m.Start, viewEnd - m.Offset);
            }
        }
    }
}
