"""The randomness policy (docs/concepts.md): None, int seeds, Generators, child streams."""

from __future__ import annotations

import numpy as np
import pytest

from dpcount.common.rng import as_generator, spawn
from dpcount.errors import InvalidParameterError


def test_seeds_are_reproducible_and_none_is_fresh():
    assert as_generator(3).integers(10**9) == as_generator(3).integers(10**9)
    # A SeedSequence is spawned: reproducible from fresh objects, fresh on every reuse.
    assert as_generator(np.random.SeedSequence(3)).integers(10**9) == (
        np.random.default_rng(np.random.SeedSequence(3).spawn(1)[0]).integers(10**9)
    )
    seq = np.random.SeedSequence(3)
    assert as_generator(seq).integers(2**62) != as_generator(seq).integers(2**62)
    fresh = {int(as_generator(None).integers(2**62)) for _ in range(5)}
    assert len(fresh) == 5
    g = np.random.default_rng(0)
    assert as_generator(g) is g


def test_children_are_independent_and_reproducible():
    a, b = spawn(11, 2)
    x, y = a.integers(2**62, size=1000), b.integers(2**62, size=1000)
    assert not np.array_equal(x, y)
    assert abs(np.corrcoef(x.astype(float), y.astype(float))[0, 1]) < 0.15  # ~4.7 sd
    again = spawn(11, 2)
    assert np.array_equal(again[0].integers(2**62, size=1000), x)
    parent = np.random.default_rng(5)
    kids = spawn(parent, 3)
    assert len(kids) == 3 and len({int(k.integers(2**62)) for k in kids}) == 3


@pytest.mark.parametrize("bad", [-1, 1.5, "7", True, object()])
def test_invalid_rng(bad):
    with pytest.raises(InvalidParameterError):
        as_generator(bad)
