"""Streaming dictionary encoding of person–item rows into integer codes (no Python object per row).

The reader hands this module a stream of Arrow record batches with the columns ``p``, ``i`` (and
``c`` for counts).  Each group of batches is dictionary-encoded on its own (Arrow's hash kernel;
integers from a narrow range through a table over the range; columns that arrive
dictionary-encoded keep their dictionaries, one per run of batches sharing one), each column in
a thread of its own, and only its small ``int32`` codes and its dictionary are kept – never the
rows' labels.  At the end the batch dictionaries are unified – hashed into distinct labels, or,
where the groups share few labels (persons of a file sorted by person), deduplicated by one
sort of all entries – the distinct labels sorted (strings by code point, numbers numerically:
the data-independent order of :mod:`dpcount.graph`), and each chunk of rows gets the map from
its group's dictionary to the ranks of those labels.  The codes stay in Arrow's buffers and are
never rewritten: the CSR construction applies the maps as it reads them
(:func:`dpcount.graph.assembly.csr_from_code_groups`), and deduplicates.  A string column
whose groups' dictionaries turn out nearly as long as the groups (many distinct labels in random
row order) is interned from then on instead (:mod:`dpcount.io._intern`), so that its labels are
kept once, not once per group.

Memory per row is 8 bytes of codes (4 per column) plus, while a group is encoded, its labels.

Rows that would need an error message or a warning – a null, empty-string or NaN id, a null or
negative count, no rows at all – raise :class:`NeedsChecks`; the reader then takes its SQL path,
which counts and reports them exactly (see :mod:`dpcount.io._strategy`).

Examples
--------
>>> import pyarrow as pa
>>> batch = pa.record_batch({"p": ["b", "a", "b"], "i": [7, 7, 5]})
>>> encoded = encode_batches([batch], with_counts=False)
>>> encoded.person_labels.tolist(), encoded.item_labels.tolist()
(['a', 'b'], [5, 7])
>>> encoded.person_maps[0][encoded.person_codes[0]].tolist()
[1, 0, 1]
>>> encoded.item_maps[0][encoded.item_codes[0]].tolist()
[1, 1, 0]
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from dpcount.common.memory import release_free_memory
from dpcount.common.tuning import TUNING
from dpcount.errors import DataError
from dpcount.graph.assembly import MAX_COUNT
from dpcount.graph.dense import dense_codes
from dpcount.io._intern import EmptyLabel, Interner

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["EncodedPairs", "NeedsChecks", "encode_batches"]


_MAX_LABELS = 2**31 - 1  # codes are int32


class NeedsChecks(Exception):
    """The rows hold something the SQL path must count and report (nulls, NaN, negatives …)."""


@dataclass(frozen=True)
class EncodedPairs:
    """Codes of every row (unsorted, duplicates kept) and the sorted distinct labels."""

    person_codes: list[np.ndarray]  # int32 per chunk of rows, indices into its person map
    item_codes: list[np.ndarray]  # int32 per chunk of rows, indices into its item map
    person_maps: list[np.ndarray]  # int32 per chunk: its dictionary's indices into person_labels
    item_maps: list[np.ndarray]  # int32 per chunk: its dictionary's indices into item_labels
    person_labels: np.ndarray | pa.Array  # strings stay Arrow (see dpcount.graph.deferred)
    item_labels: np.ndarray | pa.Array
    counts: np.ndarray | None  # int64, one per row, or None
    # Whether the labels may include values of a file's dictionary that no row uses.
    unused_persons: bool
    unused_items: bool


@dataclass(frozen=True)
class _Encoded:
    """One group of one column: int32 codes per chunk into ``dictionary``, read-only views of
    Arrow's buffers (never copied), and whether the dictionary may hold values no row uses (a
    file's own dictionary may).  Without a dictionary, the codes are ids of the column's
    :class:`~dpcount.io._intern.Interner`."""

    codes: list[np.ndarray]
    dictionary: pa.Array | None
    unused_values: bool = False


class _Column:
    """Per-group codes and dictionaries of one id column, or the column's interner once a
    group has shown that its labels barely repeat within a group."""

    def __init__(self) -> None:
        self.groups: list[_Encoded] = []
        self.interner: Interner | None = None

    def encode(self, array: pa.ChunkedArray) -> list[_Encoded]:
        """The codes of one group: interned if the column is, else :func:`_encode_column`."""
        interner = self.interner  # set by the reading thread, see add()
        if interner is None or not _is_text(array):
            return _encode_column(array)
        if array.null_count:
            raise NeedsChecks("null id")
        try:
            return [_Encoded([interner.ids(chunk) for chunk in array.chunks], None)]
        except EmptyLabel as exc:
            raise NeedsChecks("empty-string id") from exc

    def add(self, encoded: list[_Encoded]) -> None:
        """Keep a group's codes; switch the column to interning if the group asks for it."""
        self.groups += encoded
        dictionary = encoded[0].dictionary if len(encoded) == 1 else None
        if self.interner is not None or dictionary is None or not _is_text(dictionary):
            return
        rows = sum(codes.size for codes in encoded[0].codes)
        # A group of strings whose dictionary has more than ``intern_share`` entries per row makes
        # its column interned from then on, if it has at least ``intern_min_rows`` rows (smaller
        # inputs are not worth compiling the table's kernel for).
        if rows >= TUNING.intern_min_rows and len(dictionary) > TUNING.intern_share * rows:
            self.interner = Interner()

    def chunk_codes(self) -> list[np.ndarray]:
        """The codes of every chunk, in order."""
        return [codes for group in self.groups for codes in group.codes]

    def unused_values(self) -> bool:
        """Whether some group's dictionary may hold values no row uses."""
        return any(group.unused_values for group in self.groups)

    def unify(self) -> tuple[np.ndarray | pa.Array, list[np.ndarray]]:
        """Sorted distinct labels (strings as Arrow), and per chunk the map from its codes to
        their ranks."""
        import pyarrow as pa

        if self.interner is not None:
            return self._unify_interned(self.interner)
        dictionaries = [group.dictionary for group in self.groups if group.dictionary is not None]
        if pa.types.is_integer(dictionaries[0].type):
            dense = dense_codes(np.concatenate([d.to_numpy() for d in dictionaries]))
            if dense is not None:
                return self._maps(*dense)
        pool = _memory_pool()
        text = _is_text(dictionaries[0])
        narrow = pa.types.is_string(dictionaries[0].type)  # 32-bit offsets
        if narrow and sum(d.nbytes for d in dictionaries) >= TUNING.max_string_bytes:
            dictionaries = [d.cast(pa.large_string(), memory_pool=pool) for d in dictionaries]
        entries = pa.concat_arrays(dictionaries, pool)
        if text and _mostly_distinct(dictionaries):
            return self._maps(*_unify_by_sorting(entries, pool))
        return self._maps(*_unify_by_hashing(entries, pool))

    def _unify_interned(self, interner: Interner) -> tuple[pa.Array, list[np.ndarray]]:
        """:meth:`unify` for an interned column: the dictionaries of the groups encoded before
        it was are interned too, and the interner's labels are sorted once."""
        import pyarrow.compute as pc

        try:
            ids = [
                None if g.dictionary is None else interner.ids(g.dictionary) for g in self.groups
            ]
        except EmptyLabel as exc:
            raise NeedsChecks("empty-string id") from exc
        labels, position = interner.labels()
        if len(labels) > _MAX_LABELS:
            raise DataError(f"{len(labels)} distinct ids in one column exceed 2**31 - 1")
        pool = _memory_pool()
        order = pc.sort_indices(labels, memory_pool=pool)
        rank_of_label = np.empty(len(labels), dtype=np.int32)
        rank_of_label[order.to_numpy()] = np.arange(len(labels), dtype=np.int32)
        rank = rank_of_label[position]  # by the interner's code
        maps = []
        for group, group_ids in zip(self.groups, ids, strict=True):
            maps += [rank if group_ids is None else rank[group_ids]] * len(group.codes)
        return pc.take(labels, order, memory_pool=pool), maps

    def _maps(
        self, labels: np.ndarray | pa.Array, to_rank: np.ndarray
    ) -> tuple[np.ndarray | pa.Array, list[np.ndarray]]:
        """``labels`` and each chunk's map, given the rank of every entry of the groups'
        dictionaries laid end to end (``to_rank``)."""
        if len(labels) > _MAX_LABELS:
            raise DataError(f"{len(labels)} distinct ids in one column exceed 2**31 - 1")
        sizes = [len(group.dictionary) for group in self.groups if group.dictionary is not None]
        bounds = np.cumsum([0, *sizes])
        maps = []
        for group, (a, b) in zip(self.groups, itertools.pairwise(bounds), strict=True):
            maps += [to_rank[a:b]] * len(group.codes)
        return labels, maps


def _is_text(array: pa.Array | pa.ChunkedArray) -> bool:
    """Whether the values are strings (32- or 64-bit offsets)."""
    import pyarrow as pa

    return bool(pa.types.is_string(array.type) or pa.types.is_large_string(array.type))


def _memory_pool() -> pa.MemoryPool:
    """The C library's allocator: it returns large freed blocks to the system at once, where
    Arrow's default pool keeps them, which would add hundreds of MB to the reader's peak."""
    import pyarrow as pa

    return pa.system_memory_pool()


#: Dictionaries, spread over a column, whose entries are counted to tell whether it repeats labels.
_SAMPLED_DICTIONARIES = 8


def _mostly_distinct(dictionaries: list[pa.Array]) -> bool:
    """Whether at least 3/4 of the entries of a few dictionaries spread over the column are
    distinct labels, as with the persons of a file sorted by person.

    Then one sort of all entries beats hashing them and sorting the distinct labels after.
    Labels that repeat in the next group (items) answer no at once.  Where neighbours share
    few labels, the whole column may still repeat them (a file in random row order, whose
    every row group holds a third of all persons, say): sorting would then order many copies
    of each label, many times slower than hashing them
    (``benchmarks/results/end_to_end.md``, fifth round).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(dictionaries) < 2:
        return True
    first, second = dictionaries[0], dictionaries[1]
    if 2 * (pc.sum(pc.is_in(second, value_set=first)).as_py() or 0) > len(second):
        return False
    picks = np.linspace(0, len(dictionaries) - 1, _SAMPLED_DICTIONARIES).round().astype(int)
    sample = pa.chunked_array([dictionaries[k] for k in np.unique(picks)])
    return 4 * pc.count_distinct(sample).as_py() >= 3 * len(sample)


def _unify_by_sorting(entries: pa.Array, pool: pa.MemoryPool) -> tuple[pa.Array, np.ndarray]:
    """Sorted distinct labels of string ``entries``, and each entry's rank among them, by one
    sort of all entries.

    For dictionaries that share few labels: hashing would insert nearly every entry into a
    growing table and then sort the labels anyway (twice as slow:
    ``benchmarks/results/end_to_end.md``, fifth round).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    order = pc.sort_indices(entries, memory_pool=pool)
    ordered = pc.take(entries, order, memory_pool=pool)
    fresh = np.ones(len(ordered), dtype=bool)  # the first of each run of equal labels
    if len(ordered) > 1:
        fresh[1:] = pc.not_equal(ordered[1:], ordered[:-1]).to_numpy(zero_copy_only=False)
    distinct = pc.filter(ordered, pa.array(fresh), memory_pool=pool)
    if len(distinct) and distinct[0].as_py() == "":  # the empty string sorts first
        raise NeedsChecks("empty-string id")
    to_rank = np.empty(len(entries), dtype=np.int32)  # at most _MAX_LABELS (checked later)
    to_rank[order.to_numpy()] = np.cumsum(fresh) - 1
    return distinct, to_rank


def _unify_by_hashing(
    entries: pa.Array, pool: pa.MemoryPool
) -> tuple[np.ndarray | pa.Array, np.ndarray]:
    """Sorted distinct labels of ``entries`` and each entry's rank among them: the entries
    hashed into distinct labels (Arrow's dictionary encoding), then only those sorted.
    Strings stay an Arrow array; other labels become NumPy."""
    import pyarrow as pa
    import pyarrow.compute as pc

    merged = pc.dictionary_encode(entries, memory_pool=pool)
    distinct = merged.dictionary
    text = _is_text(distinct)
    if text and pc.any(pc.equal(distinct, "")).as_py():
        raise NeedsChecks("empty-string id")
    if pa.types.is_floating(distinct.type) and pc.any(pc.is_nan(distinct)).as_py():
        raise NeedsChecks("NaN id")
    order = pc.sort_indices(distinct, memory_pool=pool).to_numpy()
    ordered = pc.take(distinct, order, memory_pool=pool)
    rank = np.empty(order.size, dtype=np.int32)  # at most _MAX_LABELS (checked later)
    rank[order] = np.arange(order.size)
    if text:
        return ordered, rank[merged.indices.to_numpy()]
    labels = ordered.to_numpy(zero_copy_only=False)
    if labels.dtype.kind == "f" and labels.size > 1:
        # -0.0 and 0.0 hash apart but are one label (numerically equal).
        fresh = np.ones(labels.size, dtype=bool)
        np.not_equal(labels[1:], labels[:-1], out=fresh[1:])
        rank[order] = np.cumsum(fresh) - 1
        labels = labels[fresh]
    return labels, rank[merged.indices.to_numpy()]


#: Groups whose columns may be encoding while the next group is read.
_GROUPS_IN_FLIGHT = 2


def _regroup(batches: Iterable[pa.RecordBatch], rows: int) -> Iterator[pa.Table]:
    """Tables of about ``rows`` rows made of consecutive non-empty batches (no copy)."""
    import pyarrow as pa

    pending: list[pa.RecordBatch] = []
    size = 0
    for batch in batches:
        if batch.num_rows:
            pending.append(batch)
            size += batch.num_rows
        if size >= rows:
            yield pa.Table.from_batches(pending)
            pending, size = [], 0
    if pending:
        yield pa.Table.from_batches(pending)


def _encode_column(array: pa.ChunkedArray) -> list[_Encoded]:
    """Codes and dictionaries for all chunks of ``array``: one dictionary for all, or, for a
    column that is dictionary-typed already, one per run of chunks sharing one.

    Arrow encodes the chunks with one shared hash table, so each chunk's dictionary is a prefix
    of the last one and every chunk's indices are valid for it.  Integers from a narrow range
    are encoded through a table instead (:func:`dpcount.graph.dense.dense_codes`).  A column that is
    already dictionary-encoded (Parquet's own dictionaries, read as such) is not hashed at all:
    its dictionaries are unified with all others at the end (:meth:`_Column.unify`).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if array.null_count:
        raise NeedsChecks("null id")
    if pa.types.is_dictionary(array.type):
        return _dictionary_runs(array.chunks)
    if pa.types.is_integer(array.type):
        dense = dense_codes(array.to_numpy())
        if dense is not None:  # codes split as the chunks are (views), as the other column's
            bounds = np.cumsum([len(chunk) for chunk in array.chunks])[:-1]
            return [_Encoded(np.split(dense[1], bounds), pa.array(dense[0]))]
    chunks = pc.dictionary_encode(array, memory_pool=_memory_pool()).chunks
    return [_Encoded(_chunk_codes(chunks), chunks[-1].dictionary)]


def _chunk_codes(chunks: list[pa.DictionaryArray]) -> list[np.ndarray]:
    """The chunks' dictionary indices as int32 NumPy arrays: views of Arrow's buffers where
    they are int32 already (as Arrow's encoder and Parquet make them), else converted."""
    return [chunk.indices.to_numpy().astype(np.int32, copy=False) for chunk in chunks]


def _dictionary_runs(chunks: list[pa.DictionaryArray]) -> list[_Encoded]:
    """One :class:`_Encoded` per run of consecutive chunks with equal dictionaries.

    The batches of one Parquet row group share its dictionary; a group of batches may span
    row groups.  Comparing dictionaries costs little, where unifying them would hash their
    values once per group and again across groups.
    """
    runs, start = [], 0
    for end in range(1, len(chunks) + 1):
        if end == len(chunks) or not chunks[end].dictionary.equals(chunks[start].dictionary):
            runs.append(_dictionary_run(chunks[start:end]))
            start = end
    return runs


def _dictionary_run(chunks: list[pa.DictionaryArray]) -> _Encoded:
    """Codes and dictionary of chunks sharing one dictionary, with no nulls among their indices.

    A dictionary may hold values no row uses (a writer may keep them).  They are not looked
    for here, which would cost a pass over every row's codes, but
    dropped once the pairs are built: persons without pairs, items without holders.
    """
    dictionary = chunks[0].dictionary
    if dictionary.null_count:
        raise NeedsChecks("null id")
    return _Encoded(_chunk_codes(chunks), dictionary, unused_values=True)


def _collect(
    encoded: tuple[Future[list[_Encoded]], Future[list[_Encoded]]],
    persons: _Column,
    items: _Column,
) -> None:
    """Add one group's encoded columns, in the order the groups were read."""
    persons.add(encoded[0].result())
    items.add(encoded[1].result())


def encode_batches(batches: Iterable[pa.RecordBatch], *, with_counts: bool) -> EncodedPairs:
    """Encode a stream of ``p``, ``i`` (, ``c``) batches into integer codes and sorted labels.

    Raises
    ------
    NeedsChecks
        When a row has a null, empty or NaN id or a null or negative count, or there are no
        rows: the caller reports those through its exact (slower) path.
    """
    persons, items = _Column(), _Column()
    counts: list[np.ndarray] = []
    total = 0
    # One dictionary per group of rows (readers yield smaller batches, whose dictionaries would
    # repeat most labels); a group small enough that its labels stay a few tens of MB.
    group_rows = TUNING.rows_per_group
    with ThreadPoolExecutor(max_workers=2) as pool:
        # Each column of each group is a task of its own, so that both threads stay busy
        # while the next group is read (whichever column is the expensive one to hash).
        in_flight: deque[tuple[Future[list[_Encoded]], Future[list[_Encoded]]]] = deque()
        for batch in _regroup(batches, group_rows):
            in_flight.append(
                (
                    pool.submit(persons.encode, batch.column(0)),
                    pool.submit(items.encode, batch.column(1)),
                )
            )
            if len(in_flight) > _GROUPS_IN_FLIGHT:  # bounds the labels held at once
                _collect(in_flight.popleft(), persons, items)
            if with_counts:
                c = batch.column(2)
                if c.null_count:
                    raise NeedsChecks("null count")
                values = c.to_numpy()
                if values.size and values.dtype == np.uint64 and values.max() > MAX_COUNT:
                    raise NeedsChecks("count above 2**63 - 1")  # it would wrap round
                values = values.astype(np.int64, copy=False)
                if values.size and values.min() < 0:
                    raise NeedsChecks("negative count")
                counts.append(values)
            total += batch.num_rows
            if total % (16 * group_rows) < batch.num_rows:
                release_free_memory()  # earlier groups' labels and Arrow buffers
        while in_flight:
            _collect(in_flight.popleft(), persons, items)
        if not total:
            raise NeedsChecks("no rows")
        (person_labels, person_maps), (item_labels, item_maps) = pool.map(
            _Column.unify, (persons, items)
        )
    release_free_memory()  # the unification's hash tables and concatenated dictionaries
    return EncodedPairs(
        person_codes=persons.chunk_codes(),
        item_codes=items.chunk_codes(),
        person_maps=person_maps,
        item_maps=item_maps,
        person_labels=person_labels,
        item_labels=item_labels,
        counts=np.concatenate(counts) if with_counts else None,
        unused_persons=persons.unused_values(),
        unused_items=items.unused_values(),
    )
