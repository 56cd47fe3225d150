namespace Sharpi.Prefault;

/// <summary>
/// The tensors of selections, hot first: each selection's in file order, less those an earlier one chose; zero-length
/// tensors left out.
/// </summary>
internal static class HotFirstSelection
{
    internal static List<TensorInfo> Select(TensorIndex index, TensorSelection[] selectionsInOrder, string paramName)
    {
        for (int i = 0; i < selectionsInOrder.Length; i++)
        {
            if (selectionsInOrder[i] is null)
            {
                ThrowHelper.ThrowNullSelection(i, paramName);
            }

            index.ThrowIfAPatternMatchesNothing(selectionsInOrder[i], i, paramName);
        }

        var chosen = new HashSet<TensorInfo>(ReferenceEqualityComparer.Instance);
        var ordered = new List<TensorInfo>();
        foreach (TensorSelection selection in selectionsInOrder)
        {
            foreach (TensorInfo tensor in index.Select(selection))
            {
                if (tensor.Length > 0 && chosen.Add(tensor))
                {
                    ordered.Add(tensor);
                }
            }
        }

        return ordered;
    }
}
