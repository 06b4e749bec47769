"""Integer ids encoded through a table over their range equal the sort-based encoding."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dpcount import PersonItemGraph
from dpcount.graph.dense import dense_codes

_INTEGER_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@st.composite
def _narrow_integers(draw: st.DrawFn) -> np.ndarray:
    """Integer arrays of every width whose values lie in a range of at most 2**10, anywhere
    in their type's range (its ends included)."""
    dtype = np.dtype(draw(st.sampled_from(_INTEGER_DTYPES)))
    info = np.iinfo(dtype)
    ends = st.sampled_from([int(info.min), max(int(info.min), int(info.max) - 1000)])
    low = draw(ends | st.integers(info.min, info.max))
    high = min(int(info.max), low + draw(st.just(1 << 10) | st.integers(0, 1 << 10)))
    ends = st.sampled_from([low, high])  # the range's ends, often
    values = ends | st.integers(low, high)
    return draw(hnp.arrays(dtype, st.integers(1, 60), elements=values))


@given(_narrow_integers())
def test_codes_are_the_ranks_among_the_sorted_distinct_values(values):
    labels, codes = dense_codes(values)
    expected = np.array(sorted(set(values.tolist())), dtype=values.dtype)
    assert labels.dtype == values.dtype and labels.tolist() == expected.tolist()
    assert codes.dtype == np.int32
    assert labels[codes].tolist() == values.tolist()


def test_wide_ranges_floats_and_empty_arrays_are_left_to_other_encoders():
    assert dense_codes(np.array([0, 2**40])) is None
    assert dense_codes(np.array([1.0, 2.0])) is None
    assert dense_codes(np.array([], dtype=np.int64)) is None
    assert dense_codes(np.array([0, 2**21])) is None  # 2 values: a range of 2**20 + 8 at most
    assert dense_codes(np.array([0, 2**20])) is not None


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
def test_narrow_signed_ids_spanning_their_type_keep_their_values(dtype):
    # 100 - (-100) does not fit in int8: the offsets are taken in 64 bits.
    persons = np.array([-100, 100, 5], dtype=dtype)
    g = PersonItemGraph.from_pairs(persons, np.array([1, 2, 3]))
    assert g.person_labels.tolist() == [-100, 5, 100]
    assert g.person_labels.dtype == dtype
    assert g.indices.tolist() == [0, 2, 1]
