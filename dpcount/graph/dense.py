"""Integer ids encoded through a table over their range, when the range is narrow.

Ids that are integers from a narrow range – row numbers, surrogate keys, codes from an earlier
encoding – are the common case.  Their sorted distinct values and every value's rank among them
come from one table of ``max - min + 1`` flags: mark each value, and a running count of the
marks is the rank.  That costs O(n + range) with sequential and cache-friendly work, against a
hash table (Arrow) or a sort (NumPy) for arbitrary labels: several times faster than Arrow's
hash encoding (``benchmarks/results/end_to_end.md``, fourth round).

Examples
--------
>>> import numpy as np
>>> labels, codes = dense_codes(np.array([12, 10, 12, 15]))
>>> labels.tolist(), codes.tolist()
([10, 12, 15], [1, 0, 1, 2])
>>> dense_codes(np.array([0, 2**40])) is None  # too wide a range: hash or sort instead
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["dense_codes", "ranked_labels"]

#: The widest range encoded by a table, per value (plus a fixed allowance for short inputs):
#: the table then costs at most a few bytes per value.
_SPAN_PER_VALUE = 4
_SPAN_ALLOWANCE = 1 << 20


def dense_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Sorted distinct values of ``values`` and the rank (int32) of each value among them.

    Returns None unless ``values`` is a non-empty integer array whose range ``max - min + 1``
    is at most ``4 × values.size + 2**20`` (and below 2**31, so ranks fit in int32).  The labels
    keep the dtype of ``values``.
    """
    if values.dtype.kind not in "iu" or not values.size:
        return None
    low, high = values.min(), values.max()
    span = int(high) - int(low) + 1
    if span > min(_SPAN_PER_VALUE * values.size + _SPAN_ALLOWANCE, 2**31 - 1):
        return None
    # In [0, span): exact in 64 bits, where a narrow type could wrap (int8 127 - -128).
    offsets = np.subtract(values, low, dtype=np.int64 if values.dtype.kind == "i" else np.uint64)
    present = np.zeros(span, dtype=bool)
    present[offsets] = True
    labels, rank = ranked_labels(present, low, values.dtype)
    return labels, rank[offsets]


def ranked_labels(
    present: np.ndarray, low: int | np.integer, dtype: np.dtype | type[np.integer]
) -> tuple[np.ndarray, np.ndarray]:
    """The values ``low + k`` of the flagged offsets k, in order and of ``dtype``, and the
    rank (int32) of every offset among the flagged ones (meaningful where flagged)."""
    rank = np.cumsum(present, dtype=np.int32)
    rank -= 1
    # Added in ``dtype``: modular, so exact again for values the type holds (int8 -100 + 200).
    labels = np.flatnonzero(present).astype(dtype) + np.asarray(low, dtype=dtype)
    return labels, rank
