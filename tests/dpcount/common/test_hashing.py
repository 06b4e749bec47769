"""The keyed hashes: XXH64 as specified, in both kernel forms, and what ranks depend on."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcount.common.hashing import (
    SEED,
    _hash_strings,
    _utf8,
    hash_word,
    keyed_pair_ranks,
    label_keys,
)

# Published XXH64 values with seed 0 (xxHash's reference implementation and python-xxhash).
KNOWN = {
    "": 0xEF46DB3751D8E999,
    "abc": 0x44BC2CF5AD770999,
    "Nobody inspects the spammish repetition": 0xFBCEA83C8A378BF1,  # ≥ 32 bytes: 4 lanes
}


@pytest.mark.parametrize("form", ["interpreted", "compiled"])
def test_known_answers(form: str) -> None:
    offsets, data = _utf8(np.array(list(KNOWN)))
    with np.errstate(over="ignore"):
        got = getattr(_hash_strings, form)(offsets, data, np.uint64(0))
    assert got.tolist() == list(KNOWN.values())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=70), min_size=1, max_size=8), st.integers(0, 2**64 - 1))
def test_interpreted_and_compiled_string_hashes_agree(words: list[str], seed: int) -> None:
    offsets, data = _utf8(np.array(words, dtype=object).astype(str))
    with np.errstate(over="ignore"):
        small = _hash_strings.interpreted(offsets, data, np.uint64(seed))
    assert small.tolist() == _hash_strings.compiled(offsets, data, np.uint64(seed)).tolist()


def test_integer_keys_hash_the_eight_bytes() -> None:
    """An integer's key is XXH64 of its 8 little-endian bytes, whatever its numpy width."""
    values = np.array([0, 1, -1, 2**63 - 1, -(2**63)])
    offsets = np.arange(0, 8 * values.size + 1, 8)
    as_bytes = np.frombuffer(values.astype("<i8").tobytes(), dtype=np.uint8)
    expected = _hash_strings.compiled(offsets, as_bytes, SEED)
    assert label_keys(values).tolist() == expected.tolist()
    assert label_keys(values[:2].astype(np.int8)).tolist() == expected[:2].tolist()
    assert hash_word(np.uint64(1), SEED) == expected[1]


def test_keys_depend_on_the_label_alone() -> None:
    labels = np.array(["a", "b", "ünïcode", "a\ud800"])  # a lone surrogate still gets a key
    keys = label_keys(labels)
    assert np.unique(keys).size == labels.size
    assert label_keys(labels[::-1]).tolist() == keys[::-1].tolist()
    assert label_keys(np.array([1]))[0] != label_keys(np.array(["1"]))[0]


def test_ranks_order_by_the_signed_hash() -> None:
    """Spark orders the hash as a signed long; the local ranks must use the same order."""
    items = np.array([f"i{k}" for k in range(64)])
    indptr, indices = np.array([0, 64]), np.arange(64, dtype=np.int32)
    ranks = keyed_pair_ranks(indptr, indices, np.array(["p"]), items, np.uint64(3))
    with np.errstate(over="ignore"):
        seed = hash_word.interpreted(label_keys(np.array(["p"])), hash_word(np.uint64(3), SEED))
        hashes = hash_word.interpreted(label_keys(items), seed[0]).view(np.int64)
    assert ranks.tolist() == np.argsort(np.argsort(hashes)).tolist()
    assert (hashes < 0).any() and (hashes > 0).any()  # both signs occur, so the test has power
