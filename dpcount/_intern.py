"""One hash table of string labels for a whole column: each label gets an id when first seen.

The reader encodes its rows in groups, each with a dictionary of its own, and unifies the
dictionaries at the end (:mod:`dpcount._encode`).  That costs little while a group's dictionary
is much shorter than the group.  A column of many distinct labels in random row order (the
persons of an event log, say) makes every group's dictionary nearly as long as the group: 71M
rows in 71 groups left 57M dictionary entries, 1.7 GB, to hash again at the end.  Such a column
is interned instead: one compiled open-addressing table over Arrow's string buffers, grown as
labels arrive, gives each row the id of its label, and the distinct labels are kept once.

Examples
--------
>>> import pyarrow as pa
>>> table = Interner()
>>> table.ids(pa.array(["b", "a", "b"])).tolist(), table.ids(pa.array(["c", "a"])).tolist()
([0, 1, 0], [2, 1])
>>> table.labels().to_pylist()
['b', 'a', 'c']
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import numpy as np

from dpcount._jit import kernel

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["EmptyLabel", "Interner"]

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


class EmptyLabel(ValueError):
    """A label is the empty string (the reader reports those through its checks)."""


@kernel(
    "(ro(int64[::1]), ro(uint8[::1]), int32[::1], uint64[::1], int64[::1], uint8[::1],"
    " int64, int32[::1])"
)
def _intern(
    offsets: np.ndarray,
    data: np.ndarray,
    slots: np.ndarray,
    hashes: np.ndarray,
    starts: np.ndarray,
    arena: np.ndarray,
    n_ids: int,
    out: np.ndarray,
) -> int:
    """The id of each string ``data[offsets[j]:offsets[j + 1]]`` in ``out[j]``, new strings
    added to the table; returns the number of ids, or -1 at an empty string.

    The table: ``slots`` (open addressing, a power of two in size, -1 where empty) holds ids;
    id k has the FNV-1a hash ``hashes[k]`` and the bytes ``arena[starts[k]:starts[k + 1]]``.
    The caller leaves room for every string to be new (:meth:`Interner._reserve`).
    """
    mask = np.uint64(slots.size - 1)
    for j in range(offsets.size - 1):
        a, b = offsets[j], offsets[j + 1]
        if a == b:
            return -1
        h = _FNV_OFFSET
        for q in range(a, b):
            h = (h ^ np.uint64(data[q])) * _FNV_PRIME
        s = np.int64(h & mask)
        while True:
            found = slots[s]
            if found == -1:
                slots[s] = n_ids
                hashes[n_ids] = h
                start = starts[n_ids]
                for q in range(a, b):
                    arena[start + q - a] = data[q]
                starts[n_ids + 1] = start + b - a
                out[j] = n_ids
                n_ids += 1
                break
            if hashes[found] == h and starts[found + 1] - starts[found] == b - a:
                start = starts[found]
                same = True
                for q in range(a, b):
                    if arena[start + q - a] != data[q]:
                        same = False
                        break
                if same:
                    out[j] = found
                    break
            s = np.int64((np.uint64(s) + np.uint64(1)) & mask)
    return n_ids


@kernel("(ro(uint64[::1]), int64, int32[::1])")
def _rehash(hashes: np.ndarray, n_ids: int, slots: np.ndarray) -> None:
    """Place ids 0..n_ids-1 in an empty, larger ``slots`` table by their hashes."""
    mask = np.uint64(slots.size - 1)
    for k in range(n_ids):
        s = np.int64(hashes[k] & mask)
        while slots[s] != -1:
            s = np.int64((np.uint64(s) + np.uint64(1)) & mask)
        slots[s] = k


def _string_buffers(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The int64 offsets and the bytes of a string array without nulls (views where possible)."""
    import pyarrow as pa

    width = np.int64 if pa.types.is_large_string(strings.type) else np.int32
    _, offsets, data = strings.buffers()
    found = np.frombuffer(
        offsets, dtype=width, count=len(strings) + 1, offset=strings.offset * width().itemsize
    )
    text = np.frombuffer(data, dtype=np.uint8) if data is not None else np.empty(0, np.uint8)
    return found.astype(np.int64), text


class Interner:
    """A growing table of distinct string labels; :meth:`ids` may be called from any thread
    (one call at a time runs)."""

    def __init__(self) -> None:
        self._slots = np.full(1 << 16, -1, dtype=np.int32)
        self._hashes = np.empty(1 << 15, dtype=np.uint64)
        self._starts = np.zeros((1 << 15) + 1, dtype=np.int64)
        self._arena = np.empty(1 << 20, dtype=np.uint8)
        self._n_ids = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self._n_ids

    def ids(self, strings: pa.Array) -> np.ndarray:
        """The int32 id of each of ``strings`` (no nulls), labels not seen before added.

        Raises
        ------
        EmptyLabel
            If one of them is the empty string.
        """
        offsets, data = _string_buffers(strings)
        out = np.empty(len(strings), dtype=np.int32)
        with self._lock:
            self._reserve(len(strings), int(offsets[-1] - offsets[0]))
            n_ids = _intern(
                offsets, data, self._slots, self._hashes, self._starts, self._arena,
                self._n_ids, out,
            )  # fmt: skip
            if n_ids < 0:
                raise EmptyLabel("empty-string label")
            self._n_ids = n_ids
        return out

    def labels(self) -> pa.Array:
        """The distinct labels, label k of id k, as an Arrow large-string array."""
        import pyarrow as pa

        n = self._n_ids
        return pa.LargeStringArray.from_buffers(
            n, pa.py_buffer(self._starts[: n + 1]), pa.py_buffer(self._arena[: self._starts[n]])
        )

    def _reserve(self, count: int, size: int) -> None:
        """Room for ``count`` more labels of ``size`` bytes in all, the table at most half full."""
        needed = self._n_ids + count
        if needed + 1 > self._starts.size:
            grown = max(2 * self._starts.size, needed + 1)
            self._hashes = np.resize(self._hashes, grown)
            self._starts = np.resize(self._starts, grown + 1)
        used = int(self._starts[self._n_ids])
        if used + size > self._arena.size:
            self._arena = np.resize(self._arena, max(2 * self._arena.size, used + size))
        if 2 * needed > self._slots.size:
            self._slots = np.full(1 << (2 * needed).bit_length(), -1, dtype=np.int32)
            _rehash(self._hashes, self._n_ids, self._slots)
