namespace Sharpi.Prefault;

/// <summary>
/// The tensors of an ordered list of selections, hot first: the first selection's tensors in file order, then each
/// later selection's tensors that no earlier one chose. Zero-length tensors are left out (nothing to fault in).
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
