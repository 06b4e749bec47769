"""Integer ids from narrow ranges: pair keys built from the values as they stream.

Parquet records each row group's minimum, maximum and null count per column (writers do by
default), so the ranges of two integer id columns are known before a row is read.  When both
are narrow – ids numbered 0, 1, 2, … or from any base – each pair's key is built from the values
themselves while the files are scanned: ``(person - min) << 32 | (item - min)`` orders like the
ranks of the labels, and a table of flags over each range marks the ids that occur.  Nothing is
dictionary-encoded and no codes are kept: the keys (8 bytes per row) are the only memory per
row, and they are written by two threads while Arrow decodes the next row group.  The keys are
then sorted and written to rows as by :mod:`dpcount.graph.csr_kernels`, each offset turned into
its rank through the flag tables.

Tables in memory (pandas, polars, Arrow) take the same path, their ranges from one pass over
the two columns.  The path is taken only where it gives exactly the graph of the general one:
local files or tables whose id columns are 32/64-bit integers without nulls (files: with
statistics), and no count column.  A value outside its recorded range (statistics a writer got
wrong) abandons it: the caller then reads the files the general way.

Examples
--------
>>> import pathlib, tempfile
>>> import pyarrow as pa, pyarrow.parquet as pq
>>> folder = tempfile.TemporaryDirectory()
>>> path = str(pathlib.Path(folder.name) / "pairs.parquet")
>>> pq.write_table(pa.table({"u": [12, 10, 12, 12], "w": [7, 7, 5, 5]}), path)
>>> plan = plan_int_keys([path], "u", "w")
>>> batches = pq.ParquetFile(path).iter_batches(columns=["u", "w"])
>>> indptr, indices, persons, items = read_int_keys(batches, plan)
>>> persons.tolist(), items.tolist(), indptr.tolist(), indices.tolist()
([10, 12], [5, 7], [0, 1, 3], [1, 0, 1])
>>> folder.cleanup()
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from dpcount.common.jit import kernel
from dpcount.common.tuning import TUNING
from dpcount.graph.csr_kernels import rows_of_parts
from dpcount.graph.dense import ranked_labels

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["IntKeysPlan", "column_batches", "plan_int_columns", "plan_int_keys", "read_int_keys"]

#: The widest id range read this way, per row (plus a fixed allowance): the flag tables then
#: cost at most a few bytes per row.  The same rule as :mod:`dpcount.graph.dense`.
_SPAN_PER_ROW = 4
_SPAN_ALLOWANCE = 1 << 20
_PHYSICAL_TYPES: dict[str, type[np.integer]] = {"INT32": np.int32, "INT64": np.int64}
_NUMPY_TYPES: dict[str, type[np.integer]] = {"int32": np.int32, "int64": np.int64}
#: One row in this many is sampled for the median person of columns in memory.
_SAMPLE_STRIDE = 1024


class _OutOfRange(Exception):
    """A value lies outside the range the file's statistics recorded."""


@dataclass(frozen=True)
class IntKeysPlan:
    """What the files' statistics say: the id columns, their ranges, dtypes and the rows."""

    person: str
    item: str
    person_min: int
    person_span: int
    item_min: int
    item_span: int
    person_dtype: type[np.integer]
    item_dtype: type[np.integer]
    rows: int
    cut: int  # persons with offset below this go to the first part of the keys


def plan_int_keys(files: Sequence[str], person: str, item: str) -> IntKeysPlan | None:
    """The plan for reading ``files`` this way, or None where their metadata do not allow it."""
    import pyarrow.parquet as pq

    ranges: dict[str, list[tuple[int, int, int]]] = {person: [], item: []}
    dtypes: dict[str, set[type[np.integer]]] = {person: set(), item: set()}
    rows = 0
    try:
        for path in files:
            metadata = pq.read_metadata(path)
            leaves = [metadata.schema.column(j).path for j in range(metadata.num_columns)]
            if person not in leaves or item not in leaves:
                return None
            for k in range(metadata.num_row_groups):
                group = metadata.row_group(k)
                rows += group.num_rows
                for name in (person, item):
                    chunk = group.column(leaves.index(name))
                    stats = chunk.statistics
                    dtype = _PHYSICAL_TYPES.get(chunk.physical_type)
                    if (
                        dtype is None
                        or stats is None
                        or not stats.has_min_max
                        or not stats.has_null_count
                        or stats.null_count
                    ):
                        return None
                    dtypes[name].add(dtype)
                    ranges[name].append((int(stats.min), int(stats.max), group.num_rows))
    except (OSError, ValueError):  # Arrow's errors: the general path words them
        return None
    if not rows or len(dtypes[person]) != 1 or len(dtypes[item]) != 1:
        return None
    widest = min(_SPAN_PER_ROW * rows + _SPAN_ALLOWANCE, 2**31 - 1)
    (person_min, person_span), (item_min, item_span) = (
        _range(ranges[name]) for name in (person, item)
    )
    if person_span > widest or item_span > widest:
        return None
    return IntKeysPlan(
        person, item, person_min, person_span, item_min, item_span,
        dtypes[person].pop(), dtypes[item].pop(), rows,
        _median_offset(ranges[person], person_min),
    )  # fmt: skip


def _range(ranges: list[tuple[int, int, int]]) -> tuple[int, int]:
    """The minimum and the span (max - min + 1) over row groups' (min, max, rows)."""
    low = min(r[0] for r in ranges)
    return low, max(r[1] for r in ranges) - low + 1


def plan_int_columns(
    persons: pa.ChunkedArray, items: pa.ChunkedArray, person: str, item: str
) -> IntKeysPlan | None:
    """The plan for two integer columns in memory (no nulls), or None if a range is too wide."""
    import pyarrow.compute as pc

    rows = len(persons)
    widest = min(_SPAN_PER_ROW * rows + _SPAN_ALLOWANCE, 2**31 - 1)
    bounds = [pc.min_max(column).values() for column in (persons, items)]
    if not rows or any(int(high.as_py()) - int(low.as_py()) >= widest for low, high in bounds):
        return None
    (person_min, person_max), (item_min, item_max) = (
        (int(low.as_py()), int(high.as_py())) for low, high in bounds
    )
    sample = np.concatenate([chunk.to_numpy()[::_SAMPLE_STRIDE] for chunk in persons.chunks])
    return IntKeysPlan(
        person, item, person_min, person_max - person_min + 1, item_min,
        item_max - item_min + 1, _NUMPY_TYPES[str(persons.type)], _NUMPY_TYPES[str(items.type)],
        rows, int(np.median(sample)) - person_min + 1,
    )  # fmt: skip


def column_batches(persons: pa.ChunkedArray, items: pa.ChunkedArray) -> Iterator[pa.RecordBatch]:
    """The two columns as record batches of ``TUNING.int_keys_batch_rows`` rows (slices, no
    copies), each batch's keys written by one thread."""
    import pyarrow as pa

    table = pa.Table.from_arrays([persons, items], names=["p", "i"])
    return iter(table.to_batches(max_chunksize=TUNING.int_keys_batch_rows))


def _median_offset(ranges: list[tuple[int, int, int]], low: int) -> int:
    """The person offset that splits the rows about in half, if each row group's persons were
    spread evenly over its range: keys below it and above it are sorted by two threads."""
    middles = np.array([(a + b) / 2 - low for a, b, _ in ranges])
    weights = np.array([n for *_, n in ranges], dtype=np.float64)
    order = np.argsort(middles)
    reached = np.searchsorted(np.cumsum(weights[order]), weights.sum() / 2)
    return int(middles[order][min(reached, order.size - 1)]) + 1


@kernel("(ro(int64[::1]), int64, int64)")
def _count_below(persons: np.ndarray, person_min: int, cut: int) -> int:
    """How many of ``persons`` lie below ``person_min + cut``."""
    count = 0
    for k in range(persons.size):
        if persons[k] - person_min < cut:
            count += 1
    return count


@kernel(
    "(ro(int64[::1]), ro(int64[::1]), int64, int64, int64, int64, int64,"
    " int64[::1], int64, int64, boolean[::1], boolean[::1])"
)
def _fill_keys(
    persons: np.ndarray,
    items: np.ndarray,
    person_min: int,
    person_span: int,
    item_min: int,
    item_span: int,
    cut: int,
    keys: np.ndarray,
    below: int,
    above: int,
    person_seen: np.ndarray,
    item_seen: np.ndarray,
) -> bool:
    """Key ``(person - person_min) << 32 | (item - item_min)`` of each pair, to ``keys[below]``
    on for person offsets below ``cut`` and ``keys[above]`` on for the others; flag the offsets
    seen.  False (and stops) at a value outside its range."""
    for k in range(persons.size):
        p = persons[k] - person_min
        i = items[k] - item_min
        if p < 0 or p >= person_span or i < 0 or i >= item_span:
            return False
        person_seen[p] = True
        item_seen[i] = True
        key = (p << 32) | i
        if p < cut:
            keys[below] = key
            below += 1
        else:
            keys[above] = key
            above += 1
    return True


class _Keys:
    """The keys' buffer and the two parts' next free positions, shared by the writing threads."""

    def __init__(self, plan: IntKeysPlan) -> None:
        self.plan = plan
        self.buffer = np.empty(2 * plan.rows, dtype=np.int32)  # its int64 view holds the keys
        self.keys = self.buffer.view(np.int64)
        self.below = 0  # the first part grows from the start ...
        self.above = plan.rows  # ... the second part from the end, down
        self.lock = threading.Lock()
        # One pair of flag tables per writing thread, taken and given back per batch.
        self.seen: queue.SimpleQueue[tuple[np.ndarray, np.ndarray]] = queue.SimpleQueue()
        for _ in range(2):
            self.seen.put(
                (np.zeros(plan.person_span, dtype=bool), np.zeros(plan.item_span, dtype=bool))
            )

    def write(self, persons: np.ndarray, items: np.ndarray) -> None:
        """Write one batch's keys into space reserved for them in both parts."""
        plan = self.plan
        persons = persons.astype(np.int64, copy=False)
        items = items.astype(np.int64, copy=False)
        below = _count_below(persons, plan.person_min, plan.cut)
        with self.lock:
            if persons.size > self.above - self.below:
                raise _OutOfRange("more rows than the metadata recorded")
            start_below, self.below = self.below, self.below + below
            self.above -= persons.size - below
            start_above = self.above
        person_seen, item_seen = self.seen.get()
        try:
            in_range = _fill_keys(
                persons, items, plan.person_min, plan.person_span, plan.item_min,
                plan.item_span, plan.cut, self.keys, start_below, start_above,
                person_seen, item_seen,
            )  # fmt: skip
        finally:
            self.seen.put((person_seen, item_seen))
        if not in_range:
            raise _OutOfRange("a value outside the range the metadata recorded")

    def ranks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Person and item rank tables over the offsets, and the sorted labels."""
        tables = [self.seen.get() for _ in range(2)]
        person_seen = tables[0][0] | tables[1][0]
        item_seen = tables[0][1] | tables[1][1]
        plan = self.plan
        persons, person_rank = ranked_labels(person_seen, plan.person_min, plan.person_dtype)
        items, item_rank = ranked_labels(item_seen, plan.item_min, plan.item_dtype)
        return person_rank, item_rank, persons, items


def read_int_keys(
    batches: Iterable[pa.RecordBatch], plan: IntKeysPlan
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """``indptr``, ``indices``, person labels and item labels of the distinct pairs in
    ``batches`` (the person and item columns of the planned files), or None if a value
    contradicts the files' statistics (read them the general way then)."""
    keys = _Keys(plan)
    in_flight: deque[Future[None]] = deque()
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            for batch in batches:
                persons, items = (column.to_numpy() for column in batch.columns[:2])
                in_flight.append(pool.submit(keys.write, persons, items))
                if len(in_flight) > TUNING.int_keys_batches_in_flight:
                    in_flight.popleft().result()
            while in_flight:
                in_flight.popleft().result()
    except _OutOfRange:
        return None
    if keys.below != keys.above:
        return None  # fewer rows than the metadata recorded
    person_rank, item_rank, person_labels, item_labels = keys.ranks()
    indptr, indices = rows_of_parts(
        keys.buffer, keys.below, person_labels.size, person_rank, item_rank
    )
    return indptr, indices, person_labels, item_labels
