using System.Collections.ObjectModel;
using System.Text;

namespace Sharpi.Prefault;

/// <summary>
/// The failures a result carries, printed readably: a record prints a collection member with its ToString, which for
/// a List is <c>System.Collections.Generic.List`1[...]</c>.
/// </summary>
internal sealed class FailureList(IList<RegionFailure> failures) : ReadOnlyCollection<RegionFailure>(failures)
{
    public override string ToString()
    {
        var text = new StringBuilder("[");
        for (int i = 0; i < Count; i++)
        {
            text.Append(i == 0 ? string.Empty : "; ").Append(this[i].Name).Append(": ").Append(this[i].Message);
        }

        return text.Append(']').ToString();
    }
}
