namespace Sharpi.Prefault;

/// <summary>
/// What an options record carries for diagnostics (its <c>ILogger</c>, its <c>IProgress</c>) but is no part of its value:
/// the record keeps it in a field of this type, which its generated <c>Equals</c> and <c>GetHashCode</c> compare as
/// always equal, and its <c>PrintMembers</c> leaves it out. Two options that differ only in their logger are equal.
/// </summary>
internal readonly struct Attachment<T>(T? value) : IEquatable<Attachment<T>>
    where T : class
{
    internal T? Value { get; } = value;

    public static bool operator ==(Attachment<T> left, Attachment<T> right) => left.Equals(right);

    public static bool operator !=(Attachment<T> left, Attachment<T> right) => !left.Equals(right);

    public bool Equals(Attachment<T> other) => true;

    public override bool Equals(object? obj) => obj is Attachment<T>;

    public override int GetHashCode() => 0;
}
