"""One hash table of string labels for a whole column: each label gets an id when first seen.

The reader encodes its rows in groups, each with a dictionary of its own, and unifies the
dictionaries at the end (:mod:`dpcount.io._encode`).  That costs little while a group's dictionary
is much shorter than the group.  A column of many distinct labels in random row order (the
persons of an event log, say) makes every group's dictionary nearly as long as the group: 71M
rows in 71 groups left 57M dictionary entries, 1.7 GB, to hash again at the end.  Such a column
is interned instead: one compiled open-addressing table over Arrow's string buffers, grown as
labels arrive, gives each row the id of its label, and the distinct labels are kept once.

Examples
--------
>>> import pyarrow as pa
>>> table = Interner()
>>> codes = table.ids(pa.array(["b", "a", "b"]))
>>> more = table.ids(pa.array(["c", "a"]))
>>> bool(codes[0] == codes[2]), bool(more[1] == codes[1]), len(table)
(True, True, 3)
>>> labels, position = table.labels()
>>> [labels[int(position[c])].as_py() for c in [*codes, *more]]
['b', 'a', 'b', 'c', 'a']
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import numpy as np

from dpcount.common.hashing import string_hashes
from dpcount.common.jit import kernel

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["EmptyLabel", "Interner"]


class EmptyLabel(ValueError):
    """A label is the empty string (the reader reports those through its checks)."""


@kernel(
    "(ro(int64[::1]), ro(uint8[::1]), ro(uint64[::1]), int64, int32[::1], uint64[::1],"
    " int64[::1], uint8[::1], int64, int32[::1])"
)
def _intern(
    offsets: np.ndarray,
    data: np.ndarray,
    row_hashes: np.ndarray,
    part: int,
    slots: np.ndarray,
    hashes: np.ndarray,
    starts: np.ndarray,
    arena: np.ndarray,
    n_ids: int,
    out: np.ndarray,
) -> int:
    """For each string ``data[offsets[j]:offsets[j + 1]]`` whose hash's top bit is ``part``,
    ``out[j] = 2 * id + part`` with its id in this part's table, new strings added; returns
    the part's number of ids.

    The table: ``slots`` (open addressing, a power of two in size, -1 where empty) holds ids;
    id k has the hash ``hashes[k]`` and the bytes ``arena[starts[k]:starts[k + 1]]``.  The
    caller leaves room for every string to be new (:meth:`_Table.reserve`).
    """
    mask = np.uint64(slots.size - 1)
    for j in range(offsets.size - 1):
        h = row_hashes[j]
        if np.int64(h >> np.uint64(63)) != part:
            continue
        a, b = offsets[j], offsets[j + 1]
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
                out[j] = 2 * n_ids + part
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
                    out[j] = 2 * found + part
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
    return found.astype(np.int64, copy=False), text


class _Table:
    """One part's labels: a growing open-addressing table, used by one thread at a time."""

    def __init__(self) -> None:
        self.slots = np.full(1 << 16, -1, dtype=np.int32)
        self.hashes = np.empty(1 << 15, dtype=np.uint64)
        self.starts = np.zeros((1 << 15) + 1, dtype=np.int64)
        self.arena = np.empty(1 << 20, dtype=np.uint8)
        self.n_ids = 0
        self.lock = threading.Lock()

    def add(self, offsets: np.ndarray, data: np.ndarray, hashes: np.ndarray, part: int,
            out: np.ndarray) -> None:  # fmt: skip
        """Intern the rows of this part (see :func:`_intern`); call with ``lock`` held."""
        self.reserve(offsets.size - 1, int(offsets[-1] - offsets[0]))
        self.n_ids = _intern(
            offsets, data, hashes, part, self.slots, self.hashes, self.starts, self.arena,
            self.n_ids, out,
        )  # fmt: skip

    def labels(self) -> pa.Array:
        """The part's labels, label k of id k, as an Arrow large-string array."""
        import pyarrow as pa

        n = self.n_ids
        return pa.LargeStringArray.from_buffers(
            n, pa.py_buffer(self.starts[: n + 1]), pa.py_buffer(self.arena[: self.starts[n]])
        )

    def reserve(self, count: int, size: int) -> None:
        """Room for ``count`` more labels of ``size`` bytes in all, the table at most half full."""
        needed = self.n_ids + count
        if needed + 1 > self.starts.size:
            grown = max(2 * self.starts.size, needed + 1)
            self.hashes = np.resize(self.hashes, grown)
            self.starts = np.resize(self.starts, grown + 1)
        used = int(self.starts[self.n_ids])
        if used + size > self.arena.size:
            self.arena = np.resize(self.arena, max(2 * self.arena.size, used + size))
        if 2 * needed > self.slots.size:
            self.slots = np.full(1 << (2 * needed).bit_length(), -1, dtype=np.int32)
            _rehash(self.hashes, self.n_ids, self.slots)


class Interner:
    """Distinct string labels in two tables, split by their hash's top bit, so that two threads
    can intern at once (one table each; nearly twice one thread's rate on two cores:
    ``benchmarks/results/end_to_end.md``, fifth round).

    The code of a label is ``2 * id + part``, its id within its part's table.  :meth:`ids` may
    be called from any number of threads.
    """

    def __init__(self) -> None:
        self._tables = (_Table(), _Table())
        self._calls = 0

    def __len__(self) -> int:
        return sum(table.n_ids for table in self._tables)

    def ids(self, strings: pa.Array) -> np.ndarray:
        """The int32 code of each of ``strings`` (no nulls), labels not seen before added.

        Raises
        ------
        EmptyLabel
            If one of them is the empty string.
        """
        offsets, data = _string_buffers(strings)
        if np.any(offsets[1:] == offsets[:-1]):
            raise EmptyLabel("empty-string label")
        hashes = string_hashes(offsets, data)
        out = np.empty(len(strings), dtype=np.int32)
        self._calls += 1
        first = self._calls % 2  # alternate, so that two calls overlap on different tables
        for part in (first, 1 - first):
            table = self._tables[part]
            with table.lock:
                table.add(offsets, data, hashes, part, out)
        return out

    def labels(self) -> tuple[pa.Array, np.ndarray]:
        """The distinct labels of both parts laid end to end, and for each code the position
        of its label there (codes never given map to 0)."""
        import pyarrow as pa

        counts = [table.n_ids for table in self._tables]
        position = np.zeros(2 * max(counts), dtype=np.int64)
        position[0 : 2 * counts[0] : 2] = np.arange(counts[0])
        position[1 : 2 * counts[1] : 2] = counts[0] + np.arange(counts[1])
        return pa.concat_arrays([table.labels() for table in self._tables]), position
