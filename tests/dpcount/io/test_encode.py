"""Unifying the groups' dictionaries: by one sort or by hashing, the same labels and ranks."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcount import DataError, PersonItemGraph, read_pairs
from dpcount.common.tuning import TUNING
from dpcount.io import _encode
from dpcount.io._encode import NeedsChecks
from dpcount.io._intern import EmptyLabel, Interner

labels = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30)
dictionaries = st.lists(st.lists(labels, max_size=12, unique=True), min_size=1, max_size=6)


def _entries(groups: list[list[str]]) -> pa.Array:
    return pa.concat_arrays([pa.array(g, pa.large_string()) for g in groups])


def _both(entries: pa.Array) -> tuple[tuple[pa.Array, np.ndarray], tuple[pa.Array, np.ndarray]]:
    """Labels (strings stay Arrow) and ranks by sorting and by hashing."""
    pool = pa.default_memory_pool()
    return _encode._unify_by_sorting(entries, pool), _encode._unify_by_hashing(entries, pool)


@settings(max_examples=200, deadline=None)
@given(dictionaries)
def test_sorting_and_hashing_agree(groups: list[list[str]]) -> None:
    entries = _entries(groups)
    (sorted_labels, sorted_ranks), (hashed_labels, hashed_ranks) = _both(entries)
    assert sorted_labels.tolist() == hashed_labels.tolist() == sorted(set(entries.to_pylist()))
    assert sorted_ranks.dtype == hashed_ranks.dtype == np.int32
    assert sorted_ranks.tolist() == hashed_ranks.tolist()
    assert sorted_labels.take(sorted_ranks).to_pylist() == entries.to_pylist()


def test_an_empty_label_needs_checks_either_way() -> None:
    entries = _entries([["b", "a"], ["", "b"]])
    for unify in (_encode._unify_by_sorting, _encode._unify_by_hashing):
        with pytest.raises(NeedsChecks, match="empty"):
            unify(entries, pa.default_memory_pool())


def test_mostly_distinct_tells_disjoint_from_shared_dictionaries() -> None:
    disjoint = [pa.array([f"p{g}-{k}" for k in range(50)]) for g in range(9)]
    shared = [pa.array([f"w{(g + k) % 60}" for k in range(50)]) for g in range(9)]
    assert _encode._mostly_distinct(disjoint)
    assert not _encode._mostly_distinct(shared)
    assert _encode._mostly_distinct(shared[:1])  # one dictionary is distinct already
    # Rows in random order: each group holds a random third of the persons, and consecutive
    # groups share a third of their labels, yet all groups together repeat each label often.
    rng = np.random.default_rng(3)
    thirds = [pa.array([f"p{k}" for k in rng.choice(300, 100, replace=False)]) for _ in range(20)]
    assert not _encode._mostly_distinct(thirds)


@pytest.mark.parametrize("sorted_by_person", [True, False])
def test_files_sorted_by_person_take_the_sort(tmp_path, monkeypatch, sorted_by_person) -> None:
    rng = np.random.default_rng(7)
    persons = [f"user{p:05d}" for p in rng.integers(0, 100, 5000)]
    items = [f"word{w}" for w in rng.integers(0, 60, 5000)]
    if sorted_by_person:
        persons, items = map(list, zip(*sorted(zip(persons, items, strict=True)), strict=True))
    path = tmp_path / "pairs.parquet"
    pq.write_table(pa.table({"person": persons, "item": items}), path, row_group_size=500)
    chosen: list[bool] = []
    real = _encode._mostly_distinct
    monkeypatch.setattr(_encode, "_mostly_distinct", lambda d: chosen.append(real(d)) or chosen[-1])
    graph = read_pairs(path)
    assert sorted(chosen) == ([False, True] if sorted_by_person else [False, False])
    pairs = sorted(set(zip(persons, items, strict=True)))
    assert graph.n_pairs == len(pairs)
    rows = np.repeat(np.arange(graph.n_persons), np.diff(graph.indptr))
    found = list(zip(graph.person_labels[rows], graph.item_labels[graph.indices], strict=True))
    assert found == pairs


@pytest.mark.parametrize("limit", [1, 2**31 - 1])
def test_dictionaries_too_large_for_32_bit_offsets_are_widened(tmp_path, monkeypatch, limit):
    """Dictionaries whose text would overflow one string array's offsets are cast to large
    strings before they are laid end to end (the limit lowered here to force it)."""
    persons = [f"p{k % 37}" for k in range(400)]
    items = [f"item-{k % 53}" for k in range(400)]
    path = tmp_path / "pairs.parquet"
    pq.write_table(pa.table({"person": persons, "item": items}), path, row_group_size=50)
    monkeypatch.setattr(TUNING, "max_string_bytes", limit)
    graph = read_pairs(path)
    assert graph.person_labels.tolist() == sorted(set(persons))
    assert graph.item_labels.tolist() == sorted(set(items))
    assert graph.n_pairs == len(set(zip(persons, items, strict=True)))


# --------------------------------------------------------------------------------------------
# Interned columns: labels that barely repeat within a group
# --------------------------------------------------------------------------------------------

long_or_unicode = st.one_of(labels, st.text(alphabet="xyé😀", min_size=100, max_size=300))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(long_or_unicode, min_size=1, max_size=20), min_size=1, max_size=8))
def test_interner_gives_one_id_per_distinct_label(chunks: list[list[str]]) -> None:
    table = Interner()
    seen: dict[str, int] = {}
    for chunk in chunks:
        for label, found in zip(chunk, table.ids(pa.array(chunk)).tolist(), strict=True):
            assert seen.setdefault(label, found) == found
    assert len(set(seen.values())) == len(seen) == len(table)
    labels, position = table.labels()
    assert sorted(labels.to_pylist()) == sorted(seen)
    assert all(labels[int(position[code])].as_py() == label for label, code in seen.items())


def test_interner_grows_past_its_first_table_and_refuses_empty_labels() -> None:
    table = Interner()
    many = pa.array([f"label-{k}" for k in range(200_000)], pa.large_string())
    first = table.ids(many)
    assert table.ids(many[::-1]).tolist() == first[::-1].tolist()  # found again after growing
    assert len(table) == 200_000
    labels, position = table.labels()
    assert labels.take(position[first]).to_pylist() == many.to_pylist()
    with pytest.raises(EmptyLabel):
        table.ids(pa.array(["a", ""]))


@pytest.mark.parametrize("bad", [None, "", "ok"])
def test_interned_columns_read_as_duckdb_reads_them(tmp_path, monkeypatch, bad) -> None:
    """Persons nearly all distinct within a group are interned from the first such group on
    (groups of 300 rows here); the graph and the errors are those of DuckDB's reader."""
    rng = np.random.default_rng(4)
    persons = [f"person-{k}-é" for k in rng.integers(0, 2000, 3000)]
    items = [f"w{k}" for k in rng.integers(0, 30, 3000)]
    persons[2500] = bad
    path = tmp_path / "pairs.parquet"
    pq.write_table(pa.table({"person": persons, "item": items}), path, row_group_size=300)
    interned: list[int] = []
    real = Interner.ids
    monkeypatch.setattr(TUNING, "rows_per_group", 300)
    monkeypatch.setattr(TUNING, "intern_min_rows", 100)
    monkeypatch.setattr(Interner, "ids", lambda self, s: interned.append(len(s)) or real(self, s))
    if bad == "ok":
        graph = read_pairs(path)
        assert sum(interned) >= 3000 - 3 * 300  # rows after the first groups, their dictionaries
        expected = PersonItemGraph.from_pairs(persons, items)
        assert graph == expected
    else:
        with pytest.raises(DataError, match="null, empty"):
            read_pairs(path)


def test_interning_from_two_threads_at_once() -> None:
    """Each label gets one code however the calls of many threads interleave."""
    from concurrent.futures import ThreadPoolExecutor

    chunks = [pa.array([f"label-{(1000 * k + j) % 5000}" for j in range(3000)]) for k in range(12)]
    table = Interner()
    with ThreadPoolExecutor(4) as pool:
        coded = list(pool.map(table.ids, chunks))
    code_of: dict[str, int] = {}
    for chunk, codes in zip(chunks, coded, strict=True):
        for label, code in zip(chunk.to_pylist(), codes.tolist(), strict=True):
            assert code_of.setdefault(label, code) == code
    assert len(table) == len(code_of) == 5000
