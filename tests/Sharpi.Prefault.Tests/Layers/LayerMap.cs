using System.Text;
using System.Text.RegularExpressions;

namespace Sharpi.Prefault.Tests.Layers;

/// <summary>
/// The library's folders as layers, and the references between them that point sideways or up. The whole library is
/// one namespace, so the compiler cannot see a folder: each type is placed in the folder whose files declare it, and
/// each file's code (comments and string text left out) is scanned for the names of types declared in other folders.
/// The partial classes that every feature extends (<c>Log</c>, <c>ThrowHelper</c>) are placed member by member:
/// <c>Log.Completed</c> belongs to the folder whose <c>Log.X.cs</c> declares <c>Completed</c>.
/// </summary>
internal sealed partial class LayerMap
{
    private readonly Dictionary<string, int> _rankOf;
    private readonly Dictionary<string, HashSet<string>> _typeFolders = new(StringComparer.Ordinal);
    private readonly Dictionary<(string Type, string Member), HashSet<string>> _memberFolders = new();
    private readonly List<(string Path, string Folder, string Code)> _files = [];

    /// <param name="layers">Bottom first: each entry the folders of one layer (no arrows between folders of a layer).</param>
    /// <param name="sources">Each source file's path relative to the project (folder first) and its text.</param>
    internal LayerMap(IReadOnlyList<string[]> layers, IEnumerable<(string RelativePath, string Text)> sources)
    {
        _rankOf = new Dictionary<string, int>(StringComparer.Ordinal);
        for (int rank = 0; rank < layers.Count; rank++)
        {
            foreach (string folder in layers[rank])
            {
                _rankOf.Add(folder, rank);
            }
        }

        foreach ((string relativePath, string text) in sources)
        {
            string path = relativePath.Replace('\\', '/');
            int slash = path.IndexOf('/', StringComparison.Ordinal);
            string folder = slash < 0 ? "" : path[..slash];
            string code = CodeOnly(text);
            _files.Add((path, folder, code));
            foreach (Match m in TypeDeclaration().Matches(code))
            {
                Add(_typeFolders, m.Groups["name"].Value, folder);
            }

            foreach (Match p in PartialClass().Matches(code))
            {
                string type = p.Groups["name"].Value;
                foreach (Match member in MemberDeclaration().Matches(code))
                {
                    Add(_memberFolders, (type, member.Groups["name"].Value), folder);
                }
            }
        }
    }

    /// <summary>Files outside any layer folder, and layer folders the table does not list.</summary>
    internal IEnumerable<string> Unplaced() =>
        _files.Where(f => !_rankOf.ContainsKey(f.Folder)).Select(f => $"{f.Path}: in no layer of the table");

    /// <summary>Every reference from a file to a type (or a partial class's member) declared in a folder it may not use.</summary>
    internal IEnumerable<string> Violations()
    {
        foreach ((string path, string folder, string code) in _files)
        {
            if (!_rankOf.TryGetValue(folder, out int rank))
            {
                continue;
            }

            var seen = new HashSet<string>(StringComparer.Ordinal);
            foreach (Match m in Identifier().Matches(code))
            {
                string name = m.Value;
                if (!_typeFolders.TryGetValue(name, out HashSet<string>? folders) || folders.Contains(folder) && !IsSplit(name)
                    || IsMemberAccess(code, m.Index) || IsCallOrDeclaration(code, m))
                {
                    continue;
                }

                IEnumerable<string> targets = folders;
                string what = name;
                if (IsSplit(name) && MemberAfter(code, m) is { } member)
                {
                    targets = _memberFolders.TryGetValue((name, member), out HashSet<string>? owners) ? owners : [];
                    what = $"{name}.{member}";
                }
                else if (folders.Contains(folder))
                {
                    continue;
                }

                foreach (string target in targets)
                {
                    if (target != folder && !(_rankOf.TryGetValue(target, out int targetRank) && targetRank < rank) && seen.Add(what + target))
                    {
                        string direction = _rankOf.TryGetValue(target, out int r) && r == rank ? "sideways" : "up";
                        yield return $"{path}: {what} ({target}) is {direction} from {folder}";
                    }
                }
            }
        }
    }

    // A type declared in more than one folder: a partial class each feature extends.
    private bool IsSplit(string name) => _typeFolders[name].Count > 1;

    private static bool IsMemberAccess(string code, int index)
    {
        int i = index - 1;
        while (i >= 0 && char.IsWhiteSpace(code[i]))
        {
            i--;
        }

        return i >= 0 && code[i] == '.';
    }

    // Foo( is a method (declared or called), not the type Foo; new Foo( is the type.
    private static bool IsCallOrDeclaration(string code, Match m)
    {
        int next = m.Index + m.Length;
        if (next >= code.Length || code[next] != '(')
        {
            return false;
        }

        string before = code[..m.Index].TrimEnd();
        return !before.EndsWith("new", StringComparison.Ordinal);
    }

    private static string? MemberAfter(string code, Match m)
    {
        Match after = MemberAccess().Match(code, m.Index + m.Length);
        return after.Success && after.Index == m.Index + m.Length ? after.Groups["member"].Value : null;
    }

    private static void Add<TKey>(Dictionary<TKey, HashSet<string>> map, TKey key, string folder)
        where TKey : notnull
    {
        if (!map.TryGetValue(key, out HashSet<string>? set))
        {
            map[key] = set = new HashSet<string>(StringComparer.Ordinal);
        }

        set.Add(folder);
    }

    /// <summary>
    /// The text with comments removed and the text of string and character literals blanked; an interpolated string
    /// keeps the code in its holes (<c>$"{Sizes.Format(n)}"</c> uses <c>Sizes</c>).
    /// </summary>
    internal static string CodeOnly(string text)
    {
        var code = new StringBuilder(text.Length);
        int i = 0;
        Scan(text, ref i, code, closer: '\0');
        return code.ToString();
    }

    // Copies code until the closer (a '}' that ends an interpolation hole), or the end.
    private static void Scan(string s, ref int i, StringBuilder code, char closer)
    {
        int depth = 0;
        while (i < s.Length)
        {
            char c = s[i];
            if (c == '/' && i + 1 < s.Length && s[i + 1] == '/')
            {
                while (i < s.Length && s[i] != '\n')
                {
                    i++;
                }
            }
            else if (c == '/' && i + 1 < s.Length && s[i + 1] == '*')
            {
                int end = s.IndexOf("*/", i + 2, StringComparison.Ordinal);
                i = end < 0 ? s.Length : end + 2;
                code.Append(' ');
            }
            else if (c == '\'')
            {
                i++;
                while (i < s.Length && s[i] != '\'')
                {
                    i += s[i] == '\\' ? 2 : 1;
                }

                i++;
                code.Append("' '");
            }
            else if (c == '"' || (c is '$' or '@' && i + 1 < s.Length && s[i + 1] is '"' or '$' or '@'))
            {
                String(s, ref i, code);
            }
            else
            {
                if (c == '{')
                {
                    depth++;
                }
                else if (c == '}')
                {
                    if (depth == 0 && closer == '}')
                    {
                        i++;
                        return;
                    }

                    depth--;
                }

                code.Append(c);
                i++;
            }
        }
    }

    private static void String(string s, ref int i, StringBuilder code)
    {
        bool interpolated = false, verbatim = false;
        while (s[i] != '"')
        {
            interpolated |= s[i] == '$';
            verbatim |= s[i] == '@';
            i++;
        }

        i++;
        code.Append("\" ");
        while (i < s.Length)
        {
            char c = s[i];
            if (c == '"')
            {
                if (verbatim && i + 1 < s.Length && s[i + 1] == '"')
                {
                    i += 2;
                    continue;
                }

                i++;
                break;
            }

            if (!verbatim && c == '\\')
            {
                i += 2;
                continue;
            }

            if (interpolated && c == '{')
            {
                if (i + 1 < s.Length && s[i + 1] == '{')
                {
                    i += 2;
                    continue;
                }

                i++;
                code.Append(' ');
                Scan(s, ref i, code, closer: '}');
                code.Append(' ');
                continue;
            }

            i++;
        }

        code.Append('"');
    }

    [GeneratedRegex(@"\b(?:class|struct|interface|enum|record)\s+(?<name>[A-Za-z_]\w*)")]
    private static partial Regex TypeDeclaration();

    [GeneratedRegex(@"\bpartial\s+class\s+(?<name>[A-Za-z_]\w*)")]
    private static partial Regex PartialClass();

    [GeneratedRegex(@"\b(?:internal|public|private|protected)\b[^;{}=()]*?\b(?<name>[A-Za-z_]\w*)\s*(?:<[^<>()]*>)?\s*(?:\(|\{|=>|=|;)")]
    private static partial Regex MemberDeclaration();

    [GeneratedRegex(@"\s*\.\s*(?<member>[A-Za-z_]\w*)")]
    private static partial Regex MemberAccess();

    [GeneratedRegex(@"\b[A-Z]\w*\b")]
    private static partial Regex Identifier();
}
