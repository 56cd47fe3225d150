using System.Diagnostics;
using Sharpi.Prefault.Samples.LlamaCpp;

if (!OperatingSystem.IsLinux() || !LlamaNative.TryLoad(out string why))
{
    Console.WriteLine("no llama");
    return 0;
}

string path = Path.Combine(Path.GetTempPath(), "sharpi-llama-probe.gguf");
TinyLlamaModel.Write(path, 2, args.Length > 0 && args[0] == "q4" ? TinyLlamaModel.WeightType.Q4_0 : TinyLlamaModel.WeightType.F32);
long t = Stopwatch.GetTimestamp();
nint model = LlamaNative.LoadModel(path, LlamaNative.ModelParameters(LlamaNative.LoadMode.Mmap));
Console.WriteLine($"load {Stopwatch.GetElapsedTime(t).TotalSeconds:F3} model={model}");
Console.WriteLine(LlamaNative.TakeLog());
if (model == 0) return 1;
nint ctx = LlamaNative.InitFromModel(model, LlamaNative.ContextParameters(64));
Console.WriteLine($"ctx={ctx}");
Console.WriteLine(LlamaNative.TakeLog());
int rc = LlamaNative.DecodeOne(ctx, TinyLlamaModel.Bos);
float[] logits = LlamaNative.Logits(model, ctx);
Console.WriteLine($"decode rc={rc} logits[0..3]={string.Join(',', logits.Take(4))} n={logits.Length}");
rc = LlamaNative.DecodeOne(ctx, 10);
Console.WriteLine($"decode rc={rc}");
Console.WriteLine(LlamaNative.TakeLog());
Console.WriteLine(File.ReadAllText("/proc/self/maps").Split('\n').Where(l => l.Contains("gguf")).Aggregate("", (a, b) => a + b + "\n"));
LlamaNative.Free(ctx);
LlamaNative.ModelFree(model);
return 0;
