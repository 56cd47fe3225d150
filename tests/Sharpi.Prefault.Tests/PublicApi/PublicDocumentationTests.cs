using System.Reflection;
using System.Xml.Linq;

namespace Sharpi.Prefault.Tests.PublicApi;

/// <summary>
/// The documentation file that ships beside the assembly (and in the package) documents the public surface and
/// nothing else: build/PublicDocumentation.targets drops the internal members the compiler writes into it.
/// </summary>
public sealed class PublicDocumentationTests
{
    /// <summary>The shipped assemblies: the library and its LLamaSharp companion.</summary>
    public static TheoryData<string> Libraries => new() { "Sharpi.Prefault", "Sharpi.Prefault.LLamaSharp" };

    private static Assembly Of(string name) => name == "Sharpi.Prefault" ? typeof(MmapPrefault).Assembly : typeof(Sharpi.Prefault.LLamaSharp.LLamaPrefault).Assembly;

    [Theory]
    [MemberData(nameof(Libraries))]
    public void DocumentationFile_HasNoNonPublicMember(string library)
    {
        HashSet<string> visible = VisibleMemberKeys(Of(library));
        string[] hidden = [.. DocumentedIds(Of(library)).Where(id => !visible.Contains(Key(id)))];

        Assert.True(hidden.Length == 0,
            $"{hidden.Length} members that are not public are documented in {library}.xml, e.g.{Environment.NewLine}  " +
            string.Join(Environment.NewLine + "  ", hidden.Take(10)));
    }

    [Theory]
    [MemberData(nameof(Libraries))]
    public void DocumentationFile_DocumentsEveryPublicTypeAndItsDeclaredMembers(string library)
    {
        HashSet<string> documented = [.. DocumentedIds(Of(library)).Select(Key)];
        string[] missing = [.. VisibleMembers(Of(library))
            .Where(m => m is Type || !IsCompilerGenerated(m))
            .Select(KeyOf)
            .Where(key => !documented.Contains(key))
            .Distinct()];

        Assert.True(missing.Length == 0,
            $"{missing.Length} public members have no documentation in {library}.xml, e.g.{Environment.NewLine}  " +
            string.Join(Environment.NewLine + "  ", missing.Take(10)));
    }

    /// <summary>
    /// The trim keeps the documentation of public members whose shipped line and documentation id are written
    /// differently: an indexer ("this[int index]" is "P:Type.Item(System.Int32)") and the members of a generic type
    /// ("Box&lt;T&gt;.Get" is "M:Box`1.Get"). The library has neither today; the trim dropped both.
    /// </summary>
    [Fact]
    public void Trim_KeepsIndexersAndMembersOfGenericTypes_AndDropsTheRest()
    {
        string dir = Directory.CreateTempSubdirectory("sharpi-doc-trim-").FullName;
        try
        {
            File.WriteAllLines(Path.Combine(dir, "PublicAPI.Shipped.txt"),
            [
                "public sealed class Sharpi.Prefault.Bag : System.Collections.Generic.IReadOnlyList<int>",
                "Sharpi.Prefault.Bag.this[int index] { get; } -> int",
                "Sharpi.Prefault.Bag.this[Sharpi.Prefault.Key key, string name] { get; } -> int",
                "public sealed class Sharpi.Prefault.Box<T>",
                "Sharpi.Prefault.Box<T>.Box(T value)",
                "Sharpi.Prefault.Box<T>.Get<U>(System.Collections.Generic.List<T> x, U y) -> T",
                "Sharpi.Prefault.Box<T>.Value { get; } -> T",
                "static Sharpi.Prefault.Bag.op_Implicit(Sharpi.Prefault.Bag bag) -> int",
            ]);
            string[] kept =
            [
                "T:Sharpi.Prefault.Bag", "P:Sharpi.Prefault.Bag.Item(System.Int32)", "P:Sharpi.Prefault.Bag.Item(Sharpi.Prefault.Key,System.String)",
                "T:Sharpi.Prefault.Box`1", "M:Sharpi.Prefault.Box`1.#ctor(`0)", "M:Sharpi.Prefault.Box`1.Get``1(System.Collections.Generic.List{`0},``0)",
                "P:Sharpi.Prefault.Box`1.Value", "M:Sharpi.Prefault.Bag.op_Implicit(Sharpi.Prefault.Bag)~System.Int32",
            ];
            string[] dropped = ["P:Sharpi.Prefault.Bag.Item(System.Int32,System.Int32,System.Int32)", "M:Sharpi.Prefault.Box`1.Get(`0)", "T:Sharpi.Prefault.Hidden"];
            string docs = Path.Combine(dir, "docs.xml");
            new XDocument(new XElement("doc", new XElement("members",
                kept.Concat(dropped).Select(id => new XElement("member", new XAttribute("name", id), new XElement("summary", "text")))))).Save(docs);
            File.WriteAllText(Path.Combine(dir, "trim.proj"), $"""
                <Project>
                  <Import Project="{TargetsPath()}" />
                  <Target Name="Trim"><TrimDocumentationToPublicApi DocumentationFile="{docs}" PublicApiFile="{Path.Combine(dir, "PublicAPI.Shipped.txt")}" /></Target>
                </Project>
                """);

            var start = new System.Diagnostics.ProcessStartInfo("dotnet", ["msbuild", Path.Combine(dir, "trim.proj"), "-t:Trim", "-nologo", "-v:q", "-nodeReuse:false"])
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
            };
            using var msbuild = System.Diagnostics.Process.Start(start)!;
            string output = msbuild.StandardOutput.ReadToEnd() + msbuild.StandardError.ReadToEnd();
            msbuild.WaitForExit();
            Assert.True(msbuild.ExitCode == 0, output);

            string[] left = [.. XDocument.Load(docs).Root!.Element("members")!.Elements("member").Select(static m => (string)m.Attribute("name")!)];
            Assert.Equal(kept, left);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    private static string TargetsPath()
    {
        for (DirectoryInfo? dir = new(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            string candidate = Path.Combine(dir.FullName, "build", "PublicDocumentation.targets");
            if (File.Exists(Path.Combine(dir.FullName, "Sharpi.Prefault.sln")) && File.Exists(candidate))
            {
                return candidate;
            }
        }

        Assert.Fail("build/PublicDocumentation.targets not found above the test's folder");
        return string.Empty;
    }

    private static IEnumerable<string> DocumentedIds(Assembly library)
    {
        string path = Path.ChangeExtension(library.Location, ".xml");
        Assert.True(File.Exists(path), $"{path} is missing: the library's documentation file should be copied beside it.");
        return XDocument.Load(path).Root!.Element("members")!.Elements("member").Select(static m => (string)m.Attribute("name")!);
    }

    /// <summary>"T:Ns.Type" -> "Ns.Type"; "M:Ns.Type.Name``1(A,B{C,D})" -> "Ns.Type.Name/2"; "P:Ns.Type.Name" -> "Ns.Type.Name/-".</summary>
    private static string Key(string id)
    {
        string body = id[2..];
        if (id[0] == 'T')
        {
            return body.Split('`')[0];
        }

        int paren = body.IndexOf('(', StringComparison.Ordinal);
        string symbol = (paren < 0 ? body : body[..paren]).Split("``")[0];
        string count = paren >= 0 ? CountParameters(body[(paren + 1)..body.LastIndexOf(')')]).ToString(System.Globalization.CultureInfo.InvariantCulture)
            : id[0] == 'M' ? "0" : "-";
        return $"{symbol}/{count}";
    }

    private static int CountParameters(string list)
    {
        int depth = 0, commas = 0;
        foreach (char c in list)
        {
            depth += c is '{' or '[' or '(' ? 1 : c is '}' or ']' or ')' ? -1 : 0;
            commas += c == ',' && depth == 0 ? 1 : 0;
        }

        return list.Length == 0 ? 0 : commas + 1;
    }

    private static HashSet<string> VisibleMemberKeys(Assembly library) => [.. VisibleMembers(library).Select(KeyOf)];

    /// <summary>Public types (nested ones whose every container is public) and their public or protected members.</summary>
    private static IEnumerable<MemberInfo> VisibleMembers(Assembly library)
    {
        const BindingFlags Declared = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;
        foreach (Type type in library.GetExportedTypes())
        {
            yield return type;
            foreach (MemberInfo member in type.GetMembers(Declared))
            {
                bool visible = member switch
                {
                    MethodBase m => m.IsPublic || m.IsFamily || m.IsFamilyOrAssembly,
                    FieldInfo f => f.IsPublic || f.IsFamily || f.IsFamilyOrAssembly,
                    PropertyInfo p => (p.GetMethod ?? p.SetMethod) is { } accessor && (accessor.IsPublic || accessor.IsFamily || accessor.IsFamilyOrAssembly),
                    EventInfo e => e.AddMethod is { } add && (add.IsPublic || add.IsFamily),
                    _ => false,
                };
                if (visible && member is not Type && !(member is MethodInfo { IsSpecialName: true } special && !special.Name.StartsWith("op_", StringComparison.Ordinal)))
                {
                    yield return member;
                }
            }
        }
    }

    private static string KeyOf(MemberInfo member)
    {
        if (member is Type type)
        {
            return type.FullName!.Replace('+', '.').Split('`')[0];
        }

        string owner = member.DeclaringType!.FullName!.Replace('+', '.').Split('`')[0];
        return member switch
        {
            ConstructorInfo c => $"{owner}.#ctor/{c.GetParameters().Length}",
            MethodInfo m => $"{owner}.{m.Name}/{m.GetParameters().Length}",
            PropertyInfo p when p.GetIndexParameters().Length > 0 => $"{owner}.{p.Name}/{p.GetIndexParameters().Length}",
            _ => $"{owner}.{member.Name}/-",
        };
    }

    /// <summary>
    /// What the compiler writes for a record, a struct or an enum (Equals, Deconstruct, value__, the default constructor
    /// of a type that declares none): nothing in the source to document.
    /// </summary>
    private static bool IsCompilerGenerated(MemberInfo member) =>
        member.IsDefined(typeof(System.Runtime.CompilerServices.CompilerGeneratedAttribute)) ||
        member.DeclaringType is { IsEnum: true } && member.Name == "value__" ||
        member.DeclaringType!.GetMethod("<Clone>$") is not null && member.Name is "Equals" or "GetHashCode" or "ToString" or "op_Equality" or "op_Inequality" or "Deconstruct" or "PrintMembers" or "EqualityContract" ||
        member is ConstructorInfo { IsStatic: false } ctor && ctor.GetParameters().Length == 0 && member.DeclaringType.GetConstructors().Length == 1 ||
        member.DeclaringType.IsValueType && member.Name is "Equals" or "GetHashCode" or "ToString" or "op_Equality" or "op_Inequality" or "Deconstruct" or "PrintMembers";
}
