using System.Globalization;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text;

namespace Sharpi.Prefault.Tests.PublicApi;

/// <summary>
/// The public surface of an assembly as text: every public or protected type and member with its full signature
/// (nullability, modifiers, defaults, constant values), one per line, sorted ordinally. Names are written the same
/// whichever framework the assembly was built for (C# keywords and full names, no assembly names), so the text is
/// stable across runs and target frameworks.
/// </summary>
internal static class PublicApiText
{
    private const BindingFlags Declared = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;

    private static readonly Dictionary<Type, string> Keywords = new()
    {
        [typeof(void)] = "void", [typeof(bool)] = "bool", [typeof(byte)] = "byte", [typeof(sbyte)] = "sbyte",
        [typeof(short)] = "short", [typeof(ushort)] = "ushort", [typeof(int)] = "int", [typeof(uint)] = "uint",
        [typeof(long)] = "long", [typeof(ulong)] = "ulong", [typeof(nint)] = "nint", [typeof(nuint)] = "nuint",
        [typeof(float)] = "float", [typeof(double)] = "double", [typeof(decimal)] = "decimal", [typeof(char)] = "char",
        [typeof(string)] = "string", [typeof(object)] = "object",
    };

    public static string Of(Assembly assembly)
    {
        var lines = new List<ApiLine>();
        var nullability = new NullabilityInfoContext();
        foreach (Type type in assembly.GetTypes())
        {
            if (IsVisible(type))
            {
                AddType(type, lines, nullability);
            }
        }

        // Sorted by the name, not the modifiers, so that a type's line comes first and its members follow it.
        lines.Sort((a, b) => string.CompareOrdinal(a.Key, b.Key) is int byKey and not 0 ? byKey : string.CompareOrdinal(a.Text, b.Text));
        var text = new StringBuilder();
        foreach (ApiLine line in lines)
        {
            text.Append(line.Text).Append('\n');
        }

        return text.ToString();
    }

    private static bool IsVisible(Type type)
    {
        for (Type? t = type; t is not null; t = t.DeclaringType)
        {
            bool visible = t.IsNested ? t.IsNestedPublic || t.IsNestedFamily || t.IsNestedFamORAssem : t.IsPublic;
            if (!visible)
            {
                return false;
            }
        }

        return true;
    }

    private static bool IsVisible(MethodBase? method) => method is not null && (method.IsPublic || method.IsFamily || method.IsFamilyOrAssembly);

    private static bool IsVisible(FieldInfo field) => field.IsPublic || field.IsFamily || field.IsFamilyOrAssembly;

    private static void AddType(Type type, List<ApiLine> lines, NullabilityInfoContext nullability)
    {
        string name = TypeName(type, null);
        lines.Add(new ApiLine(name, $"{Access(type)} {TypeKind(type)} {name}{BaseList(type)}"));
        void Add(string modifiers, string member) => lines.Add(new ApiLine($"{name}.{member}", $"{modifiers}{name}.{member}"));

        if (type.IsEnum)
        {
            foreach (FieldInfo field in type.GetFields(BindingFlags.Public | BindingFlags.Static))
            {
                Add("", $"{field.Name} = {Convert.ToString(field.GetRawConstantValue(), CultureInfo.InvariantCulture)}");
            }

            return;
        }

        if (typeof(Delegate).IsAssignableFrom(type))
        {
            MethodInfo invoke = type.GetMethod("Invoke")!;
            Add("", $"Invoke({Parameters(invoke, nullability)}) -> {TypeName(invoke.ReturnType, nullability.Create(invoke.ReturnParameter))}");
            return;
        }

        foreach (ConstructorInfo ctor in type.GetConstructors(Declared))
        {
            if (IsVisible(ctor))
            {
                Add(Modifiers(ctor), $"{type.Name.Split('`')[0]}({Parameters(ctor, nullability)})");
            }
        }

        foreach (MethodInfo method in type.GetMethods(Declared))
        {
            if (IsVisible(method) && (!method.IsSpecialName || method.Name.StartsWith("op_", StringComparison.Ordinal)))
            {
                string generic = method.IsGenericMethodDefinition ? $"<{string.Join(", ", method.GetGenericArguments().Select(a => a.Name))}>" : "";
                Add(Modifiers(method), $"{method.Name}{generic}({Parameters(method, nullability)}) -> " +
                    $"{RefPrefix(method.ReturnType)}{TypeName(method.ReturnType, nullability.Create(method.ReturnParameter))}{Constraints(method)}");
            }
        }

        foreach (PropertyInfo property in type.GetProperties(Declared))
        {
            MethodInfo? getter = property.GetMethod;
            MethodInfo? setter = property.SetMethod;
            bool canGet = IsVisible(getter);
            bool canSet = IsVisible(setter);
            if (!canGet && !canSet)
            {
                continue;
            }

            ParameterInfo[] index = property.GetIndexParameters();
            string propertyName = index.Length == 0 ? property.Name : $"this[{Parameters(index, nullability)}]";
            string accessors = (canGet ? "get; " : "") + (canSet ? (IsInitOnly(setter!) ? "init; " : "set; ") : "");
            string required = property.IsDefined(typeof(RequiredMemberAttribute)) ? "required " : "";
            Add(required + Modifiers((canGet ? getter : setter)!), $"{propertyName} {{ {accessors}}} -> " +
                $"{TypeName(property.PropertyType, nullability.Create(property))}");
        }

        foreach (FieldInfo field in type.GetFields(Declared))
        {
            if (!IsVisible(field))
            {
                continue;
            }

            string fieldType = TypeName(field.FieldType, nullability.Create(field));
            if (field.IsLiteral)
            {
                Add("const ", $"{field.Name} = {Literal(field.GetRawConstantValue())} -> {fieldType}");
            }
            else
            {
                string modifiers = (field.IsStatic ? "static " : "") + (field.IsInitOnly ? "readonly " : "");
                Add(modifiers, $"{field.Name} -> {fieldType}");
            }
        }

        foreach (EventInfo e in type.GetEvents(Declared))
        {
            if (IsVisible(e.AddMethod))
            {
                Add(Modifiers(e.AddMethod!) + "event ", $"{e.Name} -> {TypeName(e.EventHandlerType!, nullability.Create(e))}");
            }
        }
    }

    private static string Access(Type type) => type.IsPublic || type.IsNestedPublic ? "public" : "protected";

    private static string TypeKind(Type type)
    {
        bool isRecord = type.GetMethod("<Clone>$") is not null || type.IsValueType && type.GetMethod("PrintMembers", Declared) is not null;
        if (type.IsInterface)
        {
            return "interface";
        }

        if (type.IsEnum)
        {
            return type.IsDefined(typeof(FlagsAttribute)) ? "[Flags] enum" : "enum";
        }

        if (type.IsValueType)
        {
            string readOnly = type.IsDefined(typeof(IsReadOnlyAttribute)) ? "readonly " : "";
            string byRef = type.IsByRefLike ? "ref " : "";
            return $"{readOnly}{byRef}{(isRecord ? "record struct" : "struct")}";
        }

        if (typeof(Delegate).IsAssignableFrom(type))
        {
            return "delegate";
        }

        string modifiers = type.IsAbstract && type.IsSealed ? "static " : type.IsAbstract ? "abstract " : type.IsSealed ? "sealed " : "";
        return modifiers + (isRecord ? "record" : "class");
    }

    private static string BaseList(Type type)
    {
        var bases = new List<string>();
        if (type.IsEnum)
        {
            Type underlying = Enum.GetUnderlyingType(type);
            if (underlying != typeof(int))
            {
                bases.Add(TypeName(underlying, null));
            }
        }
        else if (type.BaseType is Type baseType && baseType != typeof(object) && baseType != typeof(ValueType) && !typeof(Delegate).IsAssignableFrom(type))
        {
            bases.Add(TypeName(baseType, null));
        }

        if (!type.IsEnum)
        {
            // Interfaces declared on the type or inherited, by name, so the list does not depend on the framework's order.
            bases.AddRange(type.GetInterfaces().Where(i => i.IsPublic || i.IsNestedPublic).Select(i => TypeName(i, null)).Order(StringComparer.Ordinal));
        }

        return bases.Count == 0 ? "" : " : " + string.Join(", ", bases);
    }

    private static string Modifiers(MethodBase method)
    {
        var text = new StringBuilder();
        if (method.IsFamily || method.IsFamilyOrAssembly)
        {
            text.Append("protected ");
        }

        if (method.IsStatic)
        {
            text.Append("static ");
        }
        else if (method is MethodInfo m && method.IsVirtual && !method.DeclaringType!.IsInterface)
        {
            bool isOverride = m.GetBaseDefinition().DeclaringType != m.DeclaringType;
            if (method.IsAbstract)
            {
                text.Append("abstract ");
            }
            else if (isOverride)
            {
                text.Append(method.IsFinal ? "sealed override " : "override ");
            }
            else if (!method.IsFinal)
            {
                text.Append("virtual ");
            }
        }

        return text.ToString();
    }

    private static bool IsInitOnly(MethodInfo setter) =>
        setter.ReturnParameter.GetRequiredCustomModifiers().Any(m => m.FullName == "System.Runtime.CompilerServices.IsExternalInit");

    private static string Parameters(MethodBase method, NullabilityInfoContext nullability) => Parameters(method.GetParameters(), nullability);

    private static string Parameters(ParameterInfo[] parameters, NullabilityInfoContext nullability) =>
        string.Join(", ", parameters.Select(p => Parameter(p, nullability)));

    private static string Parameter(ParameterInfo parameter, NullabilityInfoContext nullability)
    {
        var text = new StringBuilder();
        if (parameter.IsDefined(typeof(ParamArrayAttribute)))
        {
            text.Append("params ");
        }

        Type type = parameter.ParameterType;
        if (type.IsByRef)
        {
            text.Append(parameter.IsOut ? "out " : parameter.IsIn ? "in " : "ref ");
        }

        text.Append(TypeName(type, nullability.Create(parameter))).Append(' ').Append(parameter.Name);
        if (parameter.HasDefaultValue)
        {
            object? value = parameter.RawDefaultValue;
            text.Append(" = ").Append(value is null ? (type.IsValueType && Nullable.GetUnderlyingType(type) is null ? "default" : "null") : Literal(value, type));
        }

        return text.ToString();
    }

    private static string Literal(object? value, Type? type = null) => value switch
    {
        null => "null",
        string s => $"\"{s}\"",
        bool b => b ? "true" : "false",
        char c => $"'{c}'",
        double d => d.ToString("R", CultureInfo.InvariantCulture),
        float f => f.ToString("R", CultureInfo.InvariantCulture),
        IFormattable f when type is { IsEnum: true } => $"{TypeName(type, null)}.{Enum.GetName(type, value) ?? f.ToString(null, CultureInfo.InvariantCulture)}",
        IFormattable f => f.ToString(null, CultureInfo.InvariantCulture),
        _ => value.ToString() ?? "",
    };

    private static string RefPrefix(Type type) => type.IsByRef ? "ref " : "";

    private static string Constraints(MethodInfo method)
    {
        if (!method.IsGenericMethodDefinition)
        {
            return "";
        }

        var text = new StringBuilder();
        foreach (Type argument in method.GetGenericArguments())
        {
            var parts = new List<string>();
            GenericParameterAttributes a = argument.GenericParameterAttributes;
            if (a.HasFlag(GenericParameterAttributes.NotNullableValueTypeConstraint))
            {
                parts.Add("struct");
            }
            else if (a.HasFlag(GenericParameterAttributes.ReferenceTypeConstraint))
            {
                parts.Add("class");
            }

            parts.AddRange(argument.GetGenericParameterConstraints().Where(c => c != typeof(ValueType)).Select(c => TypeName(c, null)));
            if (a.HasFlag(GenericParameterAttributes.DefaultConstructorConstraint) && !a.HasFlag(GenericParameterAttributes.NotNullableValueTypeConstraint))
            {
                parts.Add("new()");
            }

            if (parts.Count > 0)
            {
                text.Append(" where ").Append(argument.Name).Append(" : ").Append(string.Join(", ", parts));
            }
        }

        return text.ToString();
    }

    /// <summary>The C# name of a type, with <c>?</c> where it may be null (a reference type annotated so, or Nullable&lt;T&gt;).</summary>
    private static string TypeName(Type type, NullabilityInfo? nullability)
    {
        if (type.IsByRef)
        {
            return TypeName(type.GetElementType()!, nullability);
        }

        if (type.IsArray)
        {
            string rank = type.GetArrayRank() == 1 ? "[]" : $"[{new string(',', type.GetArrayRank() - 1)}]";
            return TypeName(type.GetElementType()!, nullability?.ElementType) + rank + Annotation(type, nullability);
        }

        if (type.IsPointer)
        {
            return TypeName(type.GetElementType()!, null) + "*";
        }

        if (Nullable.GetUnderlyingType(type) is Type underlying)
        {
            return TypeName(underlying, null) + "?";
        }

        if (type.IsGenericParameter)
        {
            return type.Name + Annotation(type, nullability);
        }

        if (Keywords.TryGetValue(type, out string? keyword))
        {
            return keyword + Annotation(type, nullability);
        }

        string name = type.IsNested ? TypeName(type.DeclaringType!, null) + "." + type.Name : $"{type.Namespace}.{type.Name}";
        int tick = name.IndexOf('`', StringComparison.Ordinal);
        if (tick >= 0)
        {
            name = name[..tick];
        }

        if (type.IsGenericType)
        {
            Type[] arguments = type.GetGenericArguments();
            NullabilityInfo[]? argumentNullability = nullability?.GenericTypeArguments;
            var names = new string[arguments.Length];
            for (int i = 0; i < arguments.Length; i++)
            {
                names[i] = TypeName(arguments[i], argumentNullability is { Length: > 0 } && i < argumentNullability.Length ? argumentNullability[i] : null);
            }

            name += $"<{string.Join(", ", names)}>";
        }

        return name + Annotation(type, nullability);
    }

    private static string Annotation(Type type, NullabilityInfo? nullability) =>
        !type.IsValueType && nullability?.ReadState == NullabilityState.Nullable ? "?" : "";

    /// <summary>One line of the listing and what it sorts by: the type's name, then the member's, modifiers aside.</summary>
    private readonly record struct ApiLine(string Key, string Text);
}
