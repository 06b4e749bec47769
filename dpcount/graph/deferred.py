"""Sorted string labels kept as an Arrow array until they are first read as a NumPy array.

The readers get string labels from Arrow.  As NumPy they are an array of Python strings, tens
of bytes and tens of nanoseconds each (``benchmarks/results/end_to_end.md``,
fifth round), which counting never reads.
A graph keeps them as Arrow made them and converts them on the first access of
``person_labels`` or ``item_labels`` (:class:`dpcount.graph.PersonItemGraph`).

Examples
--------
>>> import numpy as np, pyarrow as pa
>>> labels = DeferredLabels(pa.array(["ann", "bob", "cy"]))
>>> labels.size, labels.strictly_increasing()
(3, True)
>>> labels[np.array([True, False, True])].to_numpy().tolist()
['ann', 'cy']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["DeferredLabels"]


class DeferredLabels:
    """An Arrow string array of sorted, distinct labels, with the few array operations the graph
    builders apply to labels before they are read."""

    __slots__ = ("_array",)

    def __init__(self, array: pa.Array) -> None:
        self._array = array

    @property
    def size(self) -> int:
        return len(self._array)

    def __len__(self) -> int:
        return len(self._array)

    def __getitem__(self, keep: np.ndarray) -> DeferredLabels:
        """The labels where the boolean mask ``keep`` is true."""
        import pyarrow as pa

        return DeferredLabels(self._array.filter(pa.array(keep)))

    def strictly_increasing(self) -> bool:
        """Whether each label is above the one before (by code point, as Python compares)."""
        import pyarrow.compute as pc

        if len(self._array) < 2:
            return True
        return bool(pc.all(pc.less(self._array[:-1], self._array[1:])).as_py())

    def to_numpy(self) -> np.ndarray:
        """The labels as a NumPy array of Python strings."""
        labels: np.ndarray = self._array.to_numpy(zero_copy_only=False)
        return labels
