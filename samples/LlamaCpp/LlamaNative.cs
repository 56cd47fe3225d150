using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;

namespace Sharpi.Prefault.Samples.LlamaCpp;

/// <summary>
/// The few functions of llama.cpp's C API (include/llama.h) a host needs to load a model and decode a token, bound with
/// LibraryImport to the prebuilt libllama that samples/LlamaCpp/get-llama.sh fetches (or the one SHARPI_LLAMA_LIB names).
/// </summary>
/// <remarks>
/// The struct layouts are llama.h's at the llama.cpp commit @node-llama-cpp/linux-x64 3.22.1 bundles (0ad4a86): there
/// <c>llama_model_params</c> carries <c>enum llama_load_mode load_mode</c> where older headers had the booleans
/// <c>use_mmap</c>/<c>use_mlock</c>, and an <c>enum llama_lazy_mode</c> after it. Only the fields below are touched,
/// on the struct the library's own <c>llama_*_default_params()</c> returns; <see cref="TryLoad"/> checks the defaults
/// read at those offsets (and the load-mode names) before anything uses them, so another build with another layout is
/// refused with a message instead of a crash.
/// </remarks>
[SupportedOSPlatform("linux")]
internal static unsafe partial class LlamaNative
{
    internal const string LibraryVariable = "SHARPI_LLAMA_LIB";

    private const string Llama = "llama";
    private const string Ggml = "ggml";

    private static readonly Lock Gate = new();
    private static readonly StringBuilder LogText = new();
    private static string? s_libraryPath;
    private static bool s_initialized;

    /// <summary>llama.cpp's <c>enum llama_load_mode</c> in this build (read from <c>llama_load_mode_name</c>'s table).</summary>
    internal enum LoadMode
    {
        Auto = -1,
        None = 0,
        Mmap = 1,
        Mlock = 2,
        MmapMlock = 3,
        DirectIO = 4,
    }

    /// <summary>The libllama this process loaded, or null before <see cref="TryLoad"/> succeeded.</summary>
    internal static string? LibraryPath => s_libraryPath;

    /// <summary>
    /// Finds libllama (SHARPI_LLAMA_LIB, a file or a folder, else samples/LlamaCpp/native/ above this program), loads
    /// it with its ggml libraries and CPU backend, and checks the struct layouts. Never throws for a missing or
    /// unusable library: returns false and says why.
    /// </summary>
    internal static bool TryLoad(out string reason)
    {
        lock (Gate)
        {
            if (s_initialized)
            {
                reason = string.Empty;
                return true;
            }

            string? path = FindLibrary();
            if (path is null)
            {
                reason = $"libllama.so not found: run samples/LlamaCpp/get-llama.sh (fetches @node-llama-cpp/linux-x64 from npm into samples/LlamaCpp/native/), or set {LibraryVariable} to a libllama.so";
                return false;
            }

            if (!OperatingSystem.IsLinux() || RuntimeInformation.ProcessArchitecture != Architecture.X64)
            {
                reason = "the fetched llama.cpp is linux-x64";
                return false;
            }

            string folder = Path.GetDirectoryName(path)!;
            string? ggml = Directory.GetFiles(folder, "libggml.*so").OrderBy(f => f.Length).FirstOrDefault();
            nint llama;
            try
            {
                llama = NativeLibrary.Load(path);
                nint ggmlHandle = ggml is null ? llama : NativeLibrary.Load(ggml);
                NativeLibrary.SetDllImportResolver(typeof(LlamaNative).Assembly, (name, _, _) => name switch
                {
                    Llama => llama,
                    Ggml => ggmlHandle,
                    _ => 0,
                });
            }
            catch (Exception e) when (e is DllNotFoundException or BadImageFormatException or InvalidOperationException)
            {
                reason = $"{path} did not load: {e.Message}";
                return false;
            }

            string? layout = CheckLayouts(llama);
            if (layout is not null)
            {
                reason = $"{path}: {layout}; this sample's struct layouts are llama.h's at llama.cpp 0ad4a86 (get-llama.sh's version)";
                return false;
            }

            LlamaLogSet(&OnLog, null);
            LlamaBackendInit();
            // A GGML_BACKEND_DL build: the CPU backend is a plugin next to the library (the best variant for this CPU).
            byte[] folderUtf8 = Encoding.UTF8.GetBytes(folder + "\0");
            fixed (byte* p = folderUtf8)
            {
                GgmlBackendLoadAllFromPath(p);
            }

            s_libraryPath = path;
            s_initialized = true;
            reason = string.Empty;
            return true;
        }
    }

    /// <summary>The default model parameters with weights memory-mapped (or read, for <see cref="LoadMode.None"/>).</summary>
    internal static ModelParams ModelParameters(LoadMode mode)
    {
        ModelParams p = LlamaModelDefaultParams();
        p.LoadMode = (int)mode;
        return p;
    }

    /// <summary>The default context parameters with a small context and one thread per core.</summary>
    internal static ContextParams ContextParameters(uint contextLength)
    {
        ContextParams p = LlamaContextDefaultParams();
        p.NCtx = contextLength;
        p.NThreads = p.NThreadsBatch = Environment.ProcessorCount;
        return p;
    }

    /// <summary>Loads a model, or returns 0 (llama.cpp logged why: see <see cref="TakeLog"/>).</summary>
    internal static nint LoadModel(string path, ModelParams parameters)
    {
        byte[] utf8 = Encoding.UTF8.GetBytes(path + "\0");
        fixed (byte* p = utf8)
        {
            return LlamaModelLoadFromFile(p, parameters);
        }
    }

    /// <summary>Decodes one token at the next position of sequence 0; returns llama_decode's status (0 is success).</summary>
    internal static int DecodeOne(nint context, int token)
    {
        Batch batch = default;
        batch.NTokens = 1;
        batch.Token = &token;
        return LlamaDecode(context, batch);
    }

    /// <summary>The last decoded token's logits, copied.</summary>
    internal static float[] Logits(nint model, nint context)
    {
        int vocab = LlamaVocabNTokens(LlamaModelGetVocab(model));
        float* logits = LlamaGetLogitsIth(context, -1);
        return logits is null ? [] : new ReadOnlySpan<float>(logits, vocab).ToArray();
    }

    /// <summary>What llama.cpp logged since the last call.</summary>
    internal static string TakeLog()
    {
        lock (Gate)
        {
            string text = LogText.ToString();
            LogText.Clear();
            return text;
        }
    }

    private static string? FindLibrary()
    {
        string? configured = Environment.GetEnvironmentVariable(LibraryVariable);
        if (!string.IsNullOrEmpty(configured))
        {
            string candidate = Directory.Exists(configured) ? Path.Combine(configured, "libllama.so") : configured;
            return File.Exists(candidate) ? Path.GetFullPath(candidate) : null;
        }

        for (DirectoryInfo? dir = new(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            string candidate = Path.Combine(dir.FullName, "samples", "LlamaCpp", "native", "libllama.so");
            if (File.Exists(candidate))
            {
                return candidate;
            }
        }

        return null;
    }

    // The defaults of llama_model_default_params()/llama_context_default_params() at 0ad4a86, read at the offsets
    // this file declares: a build whose struct differs shows other values here, and is not used.
    private static string? CheckLayouts(nint llama)
    {
        if (sizeof(ModelParams) != 80 || sizeof(ContextParams) != 160 || sizeof(Batch) != 56)
        {
            return "struct sizes differ from llama.h's";
        }

        if (!NativeLibrary.TryGetExport(llama, "llama_load_mode_name", out _))
        {
            return "it has no llama_load_mode_name: an older llama.cpp, whose llama_model_params has use_mmap booleans instead of load_mode";
        }

        ModelParams m = LlamaModelDefaultParams();
        if (m.NGpuLayers != -1 || m.LoadMode != (int)LoadMode.Auto || m.MainGpu != 0 || m.VocabOnly != 0 || m.UseExtraBufts != 1 || m.NoAlloc != 0)
        {
            return $"llama_model_default_params() reads n_gpu_layers={m.NGpuLayers} load_mode={m.LoadMode} main_gpu={m.MainGpu} vocab_only={m.VocabOnly} use_extra_bufts={m.UseExtraBufts} (expected -1, -1, 0, 0, 1)";
        }

        string? name = Marshal.PtrToStringUTF8((nint)LlamaLoadModeName((int)LoadMode.Mmap));
        if (name != "mmap" || Marshal.PtrToStringUTF8((nint)LlamaLoadModeName((int)LoadMode.None)) != "none")
        {
            return $"llama_load_mode_name(1) is '{name}', not 'mmap'";
        }

        ContextParams c = LlamaContextDefaultParams();
        if (c.NCtx != 512 || c.NBatch != 2048 || c.NUbatch != 512 || c.NSeqMax != 1 || c.NThreads != 4 || c.NThreadsBatch != 4)
        {
            return $"llama_context_default_params() reads n_ctx={c.NCtx} n_batch={c.NBatch} n_ubatch={c.NUbatch} n_seq_max={c.NSeqMax} n_threads={c.NThreads}/{c.NThreadsBatch} (expected 512, 2048, 512, 1, 4/4)";
        }

        return null;
    }

    // Keeps every level (the repack lines are DEBUG): the host reads it, nothing prints it unless a call failed.
    [UnmanagedCallersOnly(CallConvs = [typeof(CallConvCdecl)])]
    private static void OnLog(int level, byte* text, void* userData)
    {
        lock (Gate)
        {
            LogText.Append(Marshal.PtrToStringUTF8((nint)text));
        }
    }

    /// <summary>struct llama_model_params (80 bytes); fields not declared here keep the defaults' bytes.</summary>
    [StructLayout(LayoutKind.Explicit, Size = 80)]
    internal struct ModelParams
    {
        [FieldOffset(0x10)] public int NGpuLayers;
        [FieldOffset(0x14)] public int SplitMode;
        [FieldOffset(0x18)] public int LoadMode;
        [FieldOffset(0x1c)] public int LazyMode;
        [FieldOffset(0x20)] public int MainGpu;
        [FieldOffset(0x48)] public byte VocabOnly;
        [FieldOffset(0x49)] public byte CheckTensors;
        [FieldOffset(0x4a)] public byte UseExtraBufts;
        [FieldOffset(0x4b)] public byte NoHost;
        [FieldOffset(0x4c)] public byte NoAlloc;
        [FieldOffset(0x4d)] public byte LoadMtp;
    }

    /// <summary>struct llama_context_params (160 bytes); fields not declared here keep the defaults' bytes.</summary>
    [StructLayout(LayoutKind.Explicit, Size = 160)]
    internal struct ContextParams
    {
        [FieldOffset(0x00)] public uint NCtx;
        [FieldOffset(0x04)] public uint NBatch;
        [FieldOffset(0x08)] public uint NUbatch;
        [FieldOffset(0x0c)] public uint NSeqMax;
        [FieldOffset(0x1c)] public int NThreads;
        [FieldOffset(0x20)] public int NThreadsBatch;
    }

    /// <summary>struct llama_batch (56 bytes): null pos/seq_id/logits mean "next position, sequence 0, last token's logits".</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct Batch
    {
        public int NTokens;
        public int* Token;
        public float* Embd;
        public int* Pos;
        public int* NSeqId;
        public int** SeqId;
        public sbyte* Logits;
    }

    [LibraryImport(Llama, EntryPoint = "llama_backend_init")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    private static partial void LlamaBackendInit();

    [LibraryImport(Llama, EntryPoint = "llama_log_set")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    private static partial void LlamaLogSet(delegate* unmanaged[Cdecl]<int, byte*, void*, void> callback, void* userData);

    [LibraryImport(Ggml, EntryPoint = "ggml_backend_load_all_from_path")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    private static partial void GgmlBackendLoadAllFromPath(byte* directory);

    [LibraryImport(Llama, EntryPoint = "llama_load_mode_name")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    private static partial byte* LlamaLoadModeName(int mode);

    [LibraryImport(Llama, EntryPoint = "llama_model_default_params")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    private static partial ModelParams LlamaModelDefaultParams();

    [LibraryImport(Llama, EntryPoint = "llama_context_default_params")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    private static partial ContextParams LlamaContextDefaultParams();

    [LibraryImport(Llama, EntryPoint = "llama_model_load_from_file")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    private static partial nint LlamaModelLoadFromFile(byte* path, ModelParams parameters);

    [LibraryImport(Llama, EntryPoint = "llama_model_free")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    internal static partial void ModelFree(nint model);

    [LibraryImport(Llama, EntryPoint = "llama_init_from_model")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    internal static partial nint InitFromModel(nint model, ContextParams parameters);

    [LibraryImport(Llama, EntryPoint = "llama_free")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    internal static partial void Free(nint context);

    [LibraryImport(Llama, EntryPoint = "llama_decode")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    private static partial int LlamaDecode(nint context, Batch batch);

    [LibraryImport(Llama, EntryPoint = "llama_get_logits_ith")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    private static partial float* LlamaGetLogitsIth(nint context, int i);

    [LibraryImport(Llama, EntryPoint = "llama_model_get_vocab")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    private static partial nint LlamaModelGetVocab(nint model);

    [LibraryImport(Llama, EntryPoint = "llama_vocab_n_tokens")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    private static partial int LlamaVocabNTokens(nint vocab);

    [LibraryImport(Llama, EntryPoint = "llama_model_size")]
    [UnmanagedCallConv(CallConvs = [typeof(CallConvCdecl)])]
    internal static partial ulong ModelSize(nint model);
}
