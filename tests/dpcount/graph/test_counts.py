"""Counts never wrap round (issue 24): a repeated pair whose counts sum past 2**63 - 1 wrapped
negative and the pair was dropped (``keep = merged > 0``); now it is an error, on every path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpcount import PersonItemGraph, read_pairs
from dpcount.errors import DataError
from dpcount.graph.assembly import MAX_COUNT, CountOverflowError, as_counts, check_count_sums

HALF = 2**62


def test_a_sum_past_the_largest_count_is_an_error():
    with pytest.raises(CountOverflowError, match="sum past 2\\*\\*63 - 1"):
        PersonItemGraph.from_pairs([1, 1, 2], ["a", "a", "b"], counts=[HALF, HALF, 1])


def test_a_sum_of_exactly_the_largest_count_is_kept():
    g = PersonItemGraph.from_pairs([1, 1, 2], ["a", "a", "b"], counts=[HALF, HALF - 1, 1])
    assert g.n_pairs == 2 and MAX_COUNT in g.counts.tolist()


@pytest.mark.parametrize("count", [2**63, 2**64 + 1])
def test_a_count_beyond_int64_is_an_error(count):
    with pytest.raises(CountOverflowError, match="a count exceeds 2\\*\\*63 - 1"):
        PersonItemGraph.from_pairs([1], ["a"], counts=[count])


def test_every_reader_refuses_the_sum(tmp_path):
    rows = {"p": [1, 1, 2], "i": ["a", "a", "b"], "c": [HALF, HALF, 1]}
    csv = tmp_path / "c.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    parquet = tmp_path / "c.parquet"
    pq.write_table(pa.table({**rows, "c": pa.array(rows["c"], pa.uint64())}), parquet)
    for source in (csv, parquet, pd.DataFrame(rows)):
        with pytest.raises(DataError, match="sum past 2\\*\\*63 - 1"):
            read_pairs(source, "p", "i", "c")


def test_an_unsigned_count_beyond_int64_is_refused(tmp_path):
    path = tmp_path / "u.parquet"
    pq.write_table(
        pa.table({"p": [1, 2], "i": ["a", "b"], "c": pa.array([2**63, 1], pa.uint64())}), path
    )
    with pytest.raises(
        DataError, match=r"u\.parquet: count column 'c' has 1 values above 2\*\*63 - 1"
    ):
        read_pairs(path, "p", "i", "c")


@given(
    st.lists(st.integers(0, MAX_COUNT), min_size=1, max_size=12),
    st.lists(st.integers(1, 4), min_size=1, max_size=12),
)
def test_check_count_sums_agrees_with_exact_sums(counts, run_lengths):
    starts, position = [], 0
    for length in run_lengths:
        if position >= len(counts):
            break
        starts.append(position)
        position += length
    exact = [sum(counts[a:b]) for a, b in zip(starts, [*starts[1:], len(counts)], strict=True)]
    values, at = np.array(counts, dtype=np.int64), np.array(starts)
    if max(exact) > MAX_COUNT:
        with pytest.raises(CountOverflowError):
            check_count_sums(values, at)
    else:
        check_count_sums(values, at)


def test_as_counts_refuses_negatives_and_floats():
    with pytest.raises(DataError, match="non-negative integers"):
        as_counts([1, -1], 2)
    with pytest.raises(DataError, match="non-negative integers"):
        as_counts([1.5], 1)


def test_a_count_column_beyond_64_bits_says_so(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text(f"p,i,c\n1,a,{2**64}\n2,b,1\n")
    with pytest.raises(DataError, match="'c' holds integers beyond 64 bits"):
        read_pairs(path, "p", "i", "c")
