"""Keyed 64-bit hashes of labels and of (person, item) pairs (SplitMix64).

A person's items are put in a random order by a keyed hash of (key, person label, item label):
the order of one person depends only on the key and on that person's own labels, so adding or
removing a person leaves every other person's order unchanged.  The hash is SplitMix64's
finalizer (Steele, Lea & Flood 2014): statistically uniform, not cryptographic.  Used by the
sampling baseline (:mod:`matching.sampling`), Δ0 sampling in set union, group bounding in
:class:`dpcount.GroupedGraph` and ``dpcount.spark``, which computes the same hash per row.

Examples
--------
>>> import numpy as np
>>> bool(label_keys(np.array(["x"]))[0] == label_keys(np.array(["x", "y"]))[0])
True
"""

from __future__ import annotations

import hashlib

import numpy as np

from dpcount._jit import SMALL_PAIRS, kernel

__all__ = ["keyed_pair_ranks", "label_keys"]

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
# Distinct domain constants so the label 1 and the label "1" get unrelated keys.
_INT_DOMAIN = np.uint64(0x243F6A8885A308D3)
_STR_DOMAIN = np.uint64(0x13198A2E03707344)


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's output function applied elementwise (uint64 arithmetic wraps mod 2⁶⁴)."""
    z = np.asarray(z, dtype=np.uint64) + _GAMMA
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def _str_keys(labels: np.ndarray) -> np.ndarray:
    """Hash of each string's code points; independent of the array's fixed width."""
    n = labels.size
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    width = labels.dtype.itemsize // 4
    codes = np.ascontiguousarray(labels).view(np.uint32).reshape(n, width).astype(np.uint64)
    lengths = np.char.str_len(labels)
    h = np.full(n, _STR_DOMAIN, dtype=np.uint64)
    for c in range(width):  # a loop over character positions, vectorised over labels
        h = np.where(c < lengths, _mix(h ^ codes[:, c]), h)
    return _mix(h ^ lengths.astype(np.uint64))


def label_keys(labels: np.ndarray) -> np.ndarray:
    """A stable 64-bit key per label that depends on the label only (not on its neighbours).

    Strings hash by code point, integers by value; other labels by BLAKE2b of their type name
    and ``repr``.

    Examples
    --------
    >>> import numpy as np
    >>> a = label_keys(np.array(["x", "yy"]))
    >>> b = label_keys(np.array(["a-much-longer-label", "x"]))
    >>> bool(a[0] == b[1]), bool(label_keys(np.array([1]))[0] == label_keys(np.array(["1"]))[0])
    (True, False)
    """
    labels = np.asarray(labels)
    if labels.dtype.kind == "O" and labels.size:
        if all(isinstance(x, str) for x in labels):
            labels = labels.astype(str)
        elif all(isinstance(x, int | np.integer) and -(2**63) <= x < 2**63 for x in labels):
            labels = labels.astype(np.int64)
    if labels.dtype.kind == "U":
        return _str_keys(labels)
    if labels.dtype.kind in "iub":
        return _mix(labels.astype(np.int64).view(np.uint64) ^ _INT_DOMAIN)
    digests = [
        hashlib.blake2b(f"{type(x).__name__}:{x!r}".encode(), digest_size=8).digest()
        for x in labels.tolist()
    ]
    return np.frombuffer(b"".join(digests), dtype=np.uint64).copy()


@kernel("(uint64,)")
def _mix64(z: np.uint64) -> np.uint64:
    """SplitMix64's output function on one value (the compiled twin of :func:`_mix`)."""
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel("(ro(int64[:]), ro(int32[:]), ro(uint64[:]), ro(uint64[:]))", interpret_below=SMALL_PAIRS)
def _ranks_kernel(
    indptr: np.ndarray, indices: np.ndarray, person_keys: np.ndarray, item_keys: np.ndarray
) -> np.ndarray:
    """Per pair, its rank among its person's items ordered by the keyed hash (ties: item id)."""
    ranks = np.empty(indices.size, dtype=np.int64)
    for p in range(indptr.size - 1):
        start, end = indptr[p], indptr[p + 1]
        keys = np.empty(end - start, dtype=np.uint64)
        for q in range(start, end):
            keys[q - start] = _mix64(person_keys[p] ^ item_keys[indices[q]])
        order = np.argsort(keys, kind="mergesort")
        for r in range(order.size):
            ranks[start + order[r]] = r
    return ranks


def keyed_pair_ranks(
    indptr: np.ndarray,
    indices: np.ndarray,
    person_labels: np.ndarray,
    item_labels: np.ndarray,
    key: np.uint64,
) -> np.ndarray:
    """Ranks of CSR pairs under the keyed hash ``mix(mix(key(person) ^ key) ^ key(item))``.

    The hash depends on labels only, so a distributed engine computing it per pair (as
    ``dpcount.spark`` does) gets the same ranks; ties (probability ~2⁻⁶⁴) go to the smaller id.

    Examples
    --------
    >>> import numpy as np
    >>> keyed_pair_ranks(np.array([0, 2]), np.array([0, 1]), np.array(["p"]),
    ...                  np.array(["a", "b"]), np.uint64(5)).tolist() in ([0, 1], [1, 0])
    True
    """
    if indices.size == 0:
        return np.zeros(0, dtype=np.int64)
    person_keys = _mix(label_keys(person_labels) ^ np.uint64(key))
    ranks = _ranks_kernel.select(indices.size)  # small inputs: interpreted, no compilation
    with np.errstate(over="ignore"):  # interpreted, the hash wraps mod 2⁶⁴ as compiled code does
        return ranks(
            np.asarray(indptr, dtype=np.int64),
            np.asarray(indices, dtype=np.int32),
            person_keys,
            label_keys(item_labels),
        )
