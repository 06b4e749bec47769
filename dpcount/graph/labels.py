"""Label rules: which values may be person, item and group labels, and how they are numbered.

Persons, items and groups are numbered ``0..n-1`` **in the sorted order of their labels**: a
total order of the universe fixed before anyone looks at who holds what.  The greedy
algorithm's sensitivity proof (Knop & Steinke, Thm 1.2) and the keyed user order of set union
rely on that; never renumber by frequency or first appearance.

Labels must be mutually orderable.  Strings sort as Python strings (by code point), numbers
numerically; a mix of strings and numbers (or bytes) is rejected rather than silently coerced,
because ``1`` and ``"1"`` would otherwise collide or sort inconsistently.  Nulls (``None``, NaN,
NaT, and the empty string, which a CSV file cannot tell from a missing value) are rejected;
labels of several kinds are reported before nulls.  Every builder of :mod:`dpcount.graph` and
every reader of :mod:`dpcount.io` applies these rules (the readers to the columns DuckDB reads,
with the same wording).

Examples
--------
>>> import numpy as np
>>> labels, codes = encode_labels(np.array(["b", "a", "b"]), "item labels")
>>> labels.tolist(), codes.tolist()
(['a', 'b'], [1, 0, 1])
>>> as_label_array([1, "1"], "person labels")
Traceback (most recent call last):
...
dpcount.errors.DataError: person labels mix label types ['number', 'str']; convert them to one \
type (e.g. all str) so that their order is well defined
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from dpcount.errors import DataError, InvalidParameterError
from dpcount.graph.deferred import DeferredLabels
from dpcount.graph.dense import dense_codes

__all__ = [
    "Labels",
    "as_key_list",
    "as_label_array",
    "check_no_nulls",
    "check_sorted_unique",
    "concat_labels",
    "contains_label",
    "encode_labels",
    "label_array",
    "label_index",
    "label_kind",
    "mixed_kinds_message",
    "null_count",
    "python_label",
]

#: Labels as NumPy, or strings kept as Arrow made them until first read.
Labels = np.ndarray | DeferredLabels


def label_kind(label_type: type) -> str:
    """Coarse kind of a label type; labels of different kinds are not mutually orderable."""
    if issubclass(label_type, str | np.str_):
        return "str"
    if issubclass(label_type, bytes | np.bytes_):
        return "bytes"
    if issubclass(label_type, bool | np.bool_):  # True == 1 would silently merge two labels
        return "bool"
    if issubclass(label_type, numbers.Number | np.number):
        return "number"
    if label_type is type(None) or label_type.__name__ == "NAType":  # pandas.NA
        return "null"
    return label_type.__name__


def _is_nan(value: Any) -> bool:
    return isinstance(value, float | np.floating) and value != value


def _is_null(value: Any) -> bool:
    return label_kind(type(value)) == "null" or _is_nan(value)


def null_count(values: np.ndarray) -> int:
    """Number of null entries (None, NaN, NaT, the empty string) in a label array.

    An empty string is a null: a CSV file cannot tell the two apart, and every reader and
    builder must see the same rows alike.

    Examples
    --------
    >>> null_count(np.array(["a", ""])), null_count(np.array([1.5, np.nan])), null_count(
    ...     np.array([None, "b", ""], dtype=object))
    (1, 1, 2)
    """
    if values.dtype.kind == "f":
        return int(np.isnan(values).sum())
    if values.dtype.kind in "mM":
        return int(np.isnat(values).sum())
    if values.dtype.kind == "U":
        return int((values == "").sum())
    if values.dtype.kind == "O":
        return sum(1 for v in values if _is_null(v) or (isinstance(v, str) and not v))
    return 0


def as_key_list(
    values: Any, what: str, error: type[DataError | InvalidParameterError] = InvalidParameterError
) -> list[Any]:
    """``values`` as a list of hashable labels (a list, tuple, set, array …), refusing one
    string (``list("abc")`` would be three labels), a non-iterable and unhashable labels
    with ``error``.

    Examples
    --------
    >>> as_key_list(("a", 2), "groups")
    ['a', 2]
    >>> as_key_list("abc", "groups")
    Traceback (most recent call last):
    ...
    dpcount.errors.InvalidParameterError: groups must be a list of labels, not one string \
('abc' would be split into letters); pass ['abc']
    >>> as_key_list([["a"]], "groups")
    Traceback (most recent call last):
    ...
    dpcount.errors.InvalidParameterError: groups must hold hashable labels (str, int, float, \
...), got a list value
    """
    if isinstance(values, str | bytes):
        raise error(
            f"{what} must be a list of labels, not one string ({values!r} would be split into "
            f"letters); pass [{values!r}]"
        )
    try:
        keys = list(values)
    except TypeError:
        raise error(
            f"{what} must be a list of labels, got a {type(values).__name__} value"
        ) from None
    for key in keys:
        try:
            hash(key)
        except TypeError:
            raise error(
                f"{what} must hold hashable labels (str, int, float, ...), got a "
                f"{type(key).__name__} value"
            ) from None
    return keys


def as_label_array(values: Any, what: str) -> np.ndarray:
    """:func:`label_array`, then refuse nulls (:func:`check_no_nulls`)."""
    arr = label_array(values, what)
    check_no_nulls(arr, what)
    return arr


def label_array(values: Any, what: str) -> np.ndarray:
    """Turn labels into a 1-D numpy array without coercing between kinds; refuse labels of
    several kinds (nulls aside: :func:`check_no_nulls` is a separate step, so that a builder of
    several columns reports kinds first and nulls after, as the readers do).

    ``np.asarray([1, "a"])`` would silently produce strings, so sequences of Python objects are
    type-checked first and become object arrays when they are not all str or all int.
    """
    if isinstance(values, np.ndarray):
        arr = values
    elif hasattr(values, "to_numpy"):  # pandas Series / Index, pyarrow-backed columns
        arr = values.to_numpy()
    else:
        seq = as_key_list(values, what, DataError)
        kinds = {label_kind(type(v)) for v in seq}
        if kinds == {"str"}:
            arr = np.array(seq, dtype=str) if seq else np.empty(0, dtype=str)
        elif kinds == {"number"} and all(isinstance(v, int | np.integer) for v in seq):
            try:
                arr = np.array(seq, dtype=np.int64)
            except OverflowError:  # beyond int64: keep Python ints
                arr = np.empty(len(seq), dtype=object)
                arr[:] = seq
        else:
            arr = np.empty(len(seq), dtype=object)
            arr[:] = seq
    if arr.ndim != 1:
        raise DataError(f"{what} must be one-dimensional, got an array of shape {arr.shape}")
    if arr.dtype.kind == "O" and arr.size:
        kinds = {label_kind(t) for t in set(map(type, arr))} - {"null"}
        if len(kinds) > 1 and "number" in kinds:  # NaN is a null, not a number
            kinds = {label_kind(type(v)) for v in arr if not _is_null(v)}
        if len(kinds) > 1:
            raise DataError(mixed_kinds_message(what, kinds))
    return arr


def check_no_nulls(labels: np.ndarray, what: str) -> None:
    """Refuse null labels (:func:`null_count`), naming how many there are."""
    nulls = null_count(labels)
    if nulls:
        raise DataError(
            f"{nulls} null {what} (None, NaN or empty); drop or fill them before building the graph"
        )


def mixed_kinds_message(what: str, kinds: set[str]) -> str:
    """The error for labels of several kinds (the same words from every builder and reader).

    Examples
    --------
    >>> mixed_kinds_message("person labels", {"str", "number"})
    "person labels mix label types ['number', 'str']; convert them to one type (e.g. all str) \
so that their order is well defined"
    """
    return (
        f"{what} mix label types {sorted(kinds)}; convert them to one type "
        "(e.g. all str) so that their order is well defined"
    )


def encode_labels(values: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique labels and, for each value, the index of its label."""
    dense = dense_codes(values)  # narrow-range integers (the common case): no sort
    if dense is not None:
        return dense
    # Sort-based (np.unique hashes in NumPy >= 2.3, many times slower on per-pair arrays).
    try:
        order = np.argsort(values, kind="stable")
        ordered = values[order]
        first = np.ones(ordered.size, dtype=bool)
        first[1:] = ordered[1:] != ordered[:-1]
    except TypeError as exc:
        raise DataError(f"{what} are not mutually orderable: {exc}") from exc
    codes = np.empty(values.size, dtype=np.intp)
    codes[order] = np.cumsum(first) - 1
    return ordered[first], codes


def concat_labels(a: np.ndarray, b: np.ndarray, what: str) -> np.ndarray:
    """Concatenate two label arrays, refusing to coerce numbers into strings."""
    if not b.size:
        return a
    if not a.size:
        return b
    numeric = set("biuf")
    if a.dtype.kind != b.dtype.kind and not {a.dtype.kind, b.dtype.kind} <= numeric:
        merged = np.empty(a.size + b.size, dtype=object)
        merged[: a.size] = a
        merged[a.size :] = b
        return as_label_array(merged, what)
    return np.concatenate([a, b])


def python_label(value: Any) -> Any:
    """A numpy scalar as the equivalent Python object (for networkx/igraph node labels)."""
    return value.item() if isinstance(value, np.generic) else value


def contains_label(sorted_labels: np.ndarray, label: Any) -> bool:
    """Whether ``label`` is one of ``sorted_labels`` (False for a label of another kind)."""
    try:
        pos = int(np.searchsorted(sorted_labels, label))
    except TypeError:
        return False
    return pos < sorted_labels.size and sorted_labels[pos] == label


def label_index(sorted_labels: np.ndarray, label: Any, what: str) -> int:
    """The position of ``label`` in ``sorted_labels``; InvalidParameterError if it is not there."""
    if not contains_label(sorted_labels, label):
        raise InvalidParameterError(f"no {what} with label {label!r} in the graph")
    return int(np.searchsorted(sorted_labels, label))


def check_sorted_unique(labels: Labels, what: str) -> None:
    """Raise a DataError unless ``labels`` are strictly increasing."""
    if isinstance(labels, DeferredLabels):
        if not labels.strictly_increasing():
            raise DataError(f"{what} labels must be sorted and unique")
    elif labels.size > 1:
        try:
            ordered = bool(np.all(labels[1:] > labels[:-1]))
        except TypeError as exc:
            raise DataError(f"{what} labels are not mutually orderable: {exc}") from exc
        if not ordered:
            raise DataError(f"{what} labels must be sorted and unique")
