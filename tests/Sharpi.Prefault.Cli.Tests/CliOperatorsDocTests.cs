using System.CommandLine;
using System.Text;
using Sharpi.Prefault.Cli;
using YamlDotNet.RepresentationModel;

namespace Sharpi.Prefault.Tests.Cli;

/// <summary>
/// docs/operators.md's manifests cannot run here (no cluster), so they are checked as far as a parse goes: every
/// <c>yaml</c> block is valid YAML of the kinds and fields the page relies on, every container mounts only volumes its
/// pod defines, a DaemonSet's selector matches its template, and every <c>sharpi-prefault</c> command line on the page
/// (in a container's command, a probe, a shell line, a bash or console block) parses with the tool's own parser.
/// </summary>
public sealed class CliOperatorsDocTests
{
    private static readonly string[] Commands = ["touch", "keep", "resident", "evict", "lock", "tensors"];

    private static readonly string Page = File.ReadAllText(Path.Combine(AppContext.BaseDirectory, "Snippets", "docs", "operators.md"));

    [Fact]
    public void OperatorsDoc_ManifestsAreAPodAndADaemonSet_EachWithItsRequiredFields()
    {
        List<YamlMappingNode> documents = Manifests();

        Assert.Equal(["DaemonSet", "Pod"], documents.Select(d => Scalar(d, "kind")).Order(StringComparer.Ordinal));
        foreach (YamlMappingNode document in documents)
        {
            Assert.False(string.IsNullOrEmpty(Scalar(document, "apiVersion")));
            Assert.False(string.IsNullOrEmpty(Scalar(Map(document, "metadata"), "name")));
        }

        YamlMappingNode daemonSet = documents.Single(d => Scalar(d, "kind") == "DaemonSet");
        Assert.Equal("apps/v1", Scalar(daemonSet, "apiVersion"));
        YamlMappingNode selector = Map(Map(Map(daemonSet, "spec"), "selector"), "matchLabels");
        YamlMappingNode labels = Map(Map(Map(Map(daemonSet, "spec"), "template"), "metadata"), "labels");
        foreach ((YamlNode key, YamlNode value) in selector.Children)
        {
            Assert.Equal(((YamlScalarNode)value).Value, Scalar(labels, ((YamlScalarNode)key).Value!));
        }
    }

    [Fact]
    public void OperatorsDoc_EveryContainerMountsOnlyVolumesItsPodDefines()
    {
        foreach (YamlMappingNode podSpec in Manifests().Select(PodSpec))
        {
            var volumes = Sequence(podSpec, "volumes").Cast<YamlMappingNode>().Select(v => Scalar(v, "name")).ToHashSet(StringComparer.Ordinal);
            foreach (YamlMappingNode container in Containers(podSpec))
            {
                foreach (YamlMappingNode mount in Sequence(container, "volumeMounts").Cast<YamlMappingNode>())
                {
                    Assert.Contains(Scalar(mount, "name"), volumes);
                }
            }
        }
    }

    [Fact]
    public void OperatorsDoc_EveryToolCommandLineInTheManifestsParses()
    {
        var lines = new List<string[]>();
        foreach (YamlMappingNode container in Manifests().Select(PodSpec).SelectMany(Containers))
        {
            string[] command = [.. Strings(container, "command"), .. Strings(container, "args")];
            lines.AddRange(ToolLines(command));
            if (container.Children.TryGetValue(new YamlScalarNode("readinessProbe"), out YamlNode? probe))
            {
                lines.AddRange(ToolLines(Strings(Map((YamlMappingNode)probe, "exec"), "command")));
            }
        }

        // The init container's touch, the keeper's keep, and the two probes.
        Assert.Equal(["keep", "keep", "resident", "resident", "touch"], lines.Select(l => l[0]).Order(StringComparer.Ordinal));
        foreach (string[] line in lines)
        {
            AssertParses(line);
        }
    }

    [Fact]
    public void OperatorsDoc_EveryToolCommandLineInItsShellBlocksParses()
    {
        var lines = new List<string[]>();
        foreach (string block in Blocks("bash").Concat(Blocks("console")))
        {
            foreach (string line in block.Split('\n'))
            {
                string text = line.StartsWith("$ ", StringComparison.Ordinal) ? line[2..] : line;
                if (text.StartsWith("sharpi-prefault ", StringComparison.Ordinal))
                {
                    lines.AddRange(ToolLines(Tokenize(text)));
                }
            }
        }

        Assert.True(lines.Count >= 3, $"found {lines.Count} command lines");
        foreach (string[] line in lines)
        {
            AssertParses(line);
        }
    }

    [Fact]
    public void AssertParses_RejectsAMisspeltOption()
    {
        // The check above would pass anything if the parser accepted anything.
        Assert.ThrowsAny<Exception>(() => AssertParses(["keep", "/models/model.gguf", "--intervall", "10s"]));
        Assert.ThrowsAny<Exception>(() => AssertParses(["resident", "/models/model.gguf", "--min", "150"]));
    }

    private static void AssertParses(string[] args)
    {
        ParseResult parsed = CliApp.Build().Parse(args);
        Assert.True(parsed.Errors.Count == 0, $"'sharpi-prefault {string.Join(' ', args)}': {string.Join("; ", parsed.Errors.Select(e => e.Message))}");
        Assert.Contains(parsed.CommandResult.Command.Name, Commands);
    }

    /// <summary>The tool's arguments in a command line: after the word that runs it, up to a shell operator; a shell's <c>-c</c> script is read too.</summary>
    private static IEnumerable<string[]> ToolLines(IReadOnlyList<string> command)
    {
        for (int i = 0; i < command.Count; i++)
        {
            if (command[i].EndsWith("sharpi-prefault", StringComparison.Ordinal))
            {
                yield return [.. command.Skip(i + 1).TakeWhile(t => t is not ("||" or "&&" or ";" or "|" or ">" or "2>&1"))];
            }
            else if (command[i].Contains("sharpi-prefault ", StringComparison.Ordinal))
            {
                foreach (string[] inner in ToolLines(Tokenize(command[i])))
                {
                    yield return inner;
                }
            }
        }
    }

    /// <summary>Splits a shell line into words: spaces separate, single and double quotes group (no escapes beyond \").</summary>
    private static List<string> Tokenize(string line)
    {
        var words = new List<string>();
        var word = new StringBuilder();
        char quote = '\0';
        bool inWord = false;
        for (int i = 0; i < line.Length; i++)
        {
            char c = line[i];
            if (quote != '\0')
            {
                if (c == '\\' && quote == '"' && i + 1 < line.Length && line[i + 1] == '"')
                {
                    word.Append('"');
                    i++;
                }
                else if (c == quote)
                {
                    quote = '\0';
                }
                else
                {
                    word.Append(c);
                }
            }
            else if (c is '\'' or '"')
            {
                quote = c;
                inWord = true;
            }
            else if (c == '#' && !inWord)
            {
                break; // a comment
            }
            else if (char.IsWhiteSpace(c))
            {
                if (inWord)
                {
                    words.Add(word.ToString());
                    word.Clear();
                    inWord = false;
                }
            }
            else
            {
                word.Append(c);
                inWord = true;
            }
        }

        if (inWord)
        {
            words.Add(word.ToString());
        }

        return words;
    }

    /// <summary>
    /// Every container that runs the readiness probe says which user runs it (securityContext.runAsUser): the probe
    /// sees a file's page cache only as its owner, root with CAP_FOWNER, or a writer, so the user decides whether it
    /// can ever pass.
    /// </summary>
    [Fact]
    public void OperatorsDoc_EveryProbeNamesItsUser()
    {
        List<(YamlMappingNode Container, string[] Probe)> probes = Probes();

        Assert.Equal(2, probes.Count);
        foreach ((YamlMappingNode container, _) in probes)
        {
            YamlMappingNode context = Map(container, "securityContext");
            Assert.True(int.Parse(Scalar(context, "runAsUser"), System.Globalization.CultureInfo.InvariantCulture) > 0);
            Assert.False(string.IsNullOrEmpty(Scalar(context, "runAsGroup")));
        }
    }

    /// <summary>
    /// Each manifest's probe, run as the manifests run it: its command line as written (the paths put on a test file),
    /// as its securityContext's user and group (setpriv), against a read-only file that user owns, as the page tells
    /// operators to chown the models. Cold, it fails; after the init container's <c>touch</c> (as root), it passes.
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Unprivileged))]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public void OperatorsDoc_Probe_AsTheManifestsUser_OnTheFilesItOwns_PassesAfterTouch()
    {
        foreach ((YamlMappingNode container, string[] probe) in Probes())
        {
            YamlMappingNode context = Map(container, "securityContext");
            string uid = Scalar(context, "runAsUser");
            string gid = Scalar(context, "runAsGroup");
            DirectoryInfo models = Directory.CreateTempSubdirectory("sharpi-operators-");
            try
            {
                using TestFile file = TestFile.Create(8 * TestFile.MiB, models.FullName);
                File.SetUnixFileMode(file.Path, UnixFileMode.UserRead | UnixFileMode.GroupRead | UnixFileMode.OtherRead);
                CliRun chown = CliProcess.RunShell($"chown -R {uid}:{gid} '{models.FullName}'");
                Assert.True(chown.ExitCode == 0, chown.Err);
                string asTheManifestsUser = $"exec setpriv --reuid={uid} --regid={gid} --clear-groups {ProbeLine(probe, file.Path, models.FullName)}";

                CliRun cold = CliProcess.RunShell(asTheManifestsUser, timeout: TimeSpan.FromSeconds(60));
                Assert.True(cold.ExitCode == 1, $"a cold file passed the probe: {cold.Out}{cold.Err}");

                CliRun touch = CliProcess.RunShell($"exec $TOOL touch '{file.Path}'", timeout: TimeSpan.FromSeconds(60));
                Assert.True(touch.ExitCode == 0, touch.Err);
                CliRun warm = CliProcess.RunShell(asTheManifestsUser, timeout: TimeSpan.FromSeconds(60));

                NoStackTrace.In(warm);
                Assert.True(warm.ExitCode == 0, $"uid {uid} owns the file and it is warm, yet the probe failed: {warm.Out}{warm.Err}");
            }
            finally
            {
                models.Delete(recursive: true);
            }
        }
    }

    /// <summary>
    /// Why the manifests name a user: as nobody, against a root-owned 0644 file, the probe can never pass, even right
    /// after <c>touch</c> warmed the file (the kernel tells nobody its page cache, so it is unknown, never resident).
    /// </summary>
    [ConditionalFact(typeof(Requirements), nameof(Requirements.Unprivileged))]
    public void OperatorsDoc_Probe_AsNobody_OnARootOwnedFile_NeverPasses_EvenAfterTouch()
    {
        string[] probe = Probes()[0].Probe;
        using TestFile file = TestFile.Create(8 * TestFile.MiB);
        CliRun touch = CliProcess.RunShell($"exec $TOOL touch '{file.Path}'", timeout: TimeSpan.FromSeconds(60));
        Assert.True(touch.ExitCode == 0, touch.Err);
        Assert.Equal(file.Length, Residency.OfFile(file.Path).ResidentBytes); // warm, measured as root

        CliRun run = CliProcess.RunShell($"exec {Unprivileged.Setpriv}{ProbeLine(probe, file.Path, Path.GetDirectoryName(file.Path)!)}",
            timeout: TimeSpan.FromSeconds(60));

        NoStackTrace.In(run);
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("unknown", run.Out, StringComparison.Ordinal);
    }

    /// <summary>The containers with a readiness probe, and the probe's command.</summary>
    private static List<(YamlMappingNode Container, string[] Probe)> Probes() =>
        [.. Manifests().Select(PodSpec).SelectMany(Containers)
            .Where(c => c.Children.ContainsKey(new YamlScalarNode("readinessProbe")))
            .Select(c => (c, Strings(Map(Map(c, "readinessProbe"), "exec"), "command").ToArray()))];

    /// <summary>
    /// The probe's command line for a shell, the tool as $TOOL, a model path on <paramref name="file"/> and a recursive
    /// directory (<c>-r DIR</c>) on <paramref name="directory"/>.
    /// </summary>
    private static string ProbeLine(string[] probe, string file, string directory)
    {
        Assert.EndsWith("/sharpi-prefault", probe[0], StringComparison.Ordinal);
        var words = new List<string> { "$TOOL" };
        for (int i = 1; i < probe.Length; i++)
        {
            bool isPath = probe[i].StartsWith('/');
            string word = !isPath ? probe[i] : probe[i - 1] == "-r" ? directory : file;
            words.Add(isPath ? $"'{word}'" : word);
        }

        return string.Join(' ', words);
    }

    private static List<YamlMappingNode> Manifests()
    {
        var documents = new List<YamlMappingNode>();
        foreach (string block in Blocks("yaml"))
        {
            var stream = new YamlStream();
            stream.Load(new StringReader(block));
            documents.AddRange(stream.Documents.Select(d => Assert.IsType<YamlMappingNode>(d.RootNode)));
        }

        return documents;
    }

    /// <summary>The fenced blocks of a language, in order.</summary>
    private static List<string> Blocks(string language)
    {
        var blocks = new List<string>();
        string[] lines = Page.Split('\n');
        for (int i = 0; i < lines.Length; i++)
        {
            if (lines[i].TrimEnd() == "```" + language)
            {
                int end = Array.FindIndex(lines, i + 1, l => l.TrimEnd() == "```");
                blocks.Add(string.Join('\n', lines[(i + 1)..end]));
                i = end;
            }
        }

        return blocks;
    }

    private static YamlMappingNode PodSpec(YamlMappingNode document) => Scalar(document, "kind") switch
    {
        "Pod" => Map(document, "spec"),
        _ => Map(Map(Map(document, "spec"), "template"), "spec"),
    };

    private static IEnumerable<YamlMappingNode> Containers(YamlMappingNode podSpec) =>
        Sequence(podSpec, "initContainers").Concat(Sequence(podSpec, "containers")).Cast<YamlMappingNode>();

    private static YamlMappingNode Map(YamlMappingNode node, string key) => Assert.IsType<YamlMappingNode>(node.Children[new YamlScalarNode(key)]);

    private static string Scalar(YamlMappingNode node, string key) => Assert.IsType<YamlScalarNode>(node.Children[new YamlScalarNode(key)]).Value!;

    private static IEnumerable<YamlNode> Sequence(YamlMappingNode node, string key) =>
        node.Children.TryGetValue(new YamlScalarNode(key), out YamlNode? value) ? Assert.IsType<YamlSequenceNode>(value).Children : [];

    private static List<string> Strings(YamlMappingNode node, string key) =>
        [.. Sequence(node, key).Select(n => Assert.IsType<YamlScalarNode>(n).Value!)];
}
