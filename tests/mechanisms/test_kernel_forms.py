"""The mechanisms' kernels give bit-identical results interpreted and compiled.

Small inputs run a kernel's code in the interpreter (``dpcount.common.jit``), larger ones compiled;
a release must not depend on which form ran, so both are compared exactly (no tolerance).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mechanisms.generalized_exponential import _envelope_scores, _hull, _shifted_scores
from mechanisms.set_union._bounding import CappedSets, _partial_shuffles
from mechanisms.set_union.greedy_policy import _greedy
from mechanisms.set_union.policy import _l1_descent, _l2_descent
from tests.strategies import graphs


def _same(kernel, *args) -> None:
    interpreted = kernel.interpreted(
        *(np.copy(a) if isinstance(a, np.ndarray) else a for a in args)
    )
    compiled = kernel.compiled(*args)
    assert np.array_equal(np.asarray(interpreted), np.asarray(compiled)), kernel


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(0, 2**32 - 1))
def test_gem_envelope_kernels(m: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    q = np.round(rng.normal(0, 100, m), int(rng.integers(0, 4)))  # ties in some draws
    sens = rng.integers(1, 40, m).astype(float)
    a, d = _shifted_scores(q, sens, epsilon=1.0, beta=0.05)
    order = np.lexsort((a, d))
    order = order[np.append(d[order][1:] != d[order][:-1], True)]
    _same(_hull, a[order], d[order])
    env = order[_hull.compiled(a[order], d[order])]
    _same(_envelope_scores, a, d, env)


@settings(max_examples=60, deadline=None)
@given(graphs(max_persons=12, max_items=10, min_persons=1), st.integers(0, 2**32 - 1))
def test_set_union_kernels(graph, seed: int) -> None:
    rng = np.random.default_rng(seed)
    sets = CappedSets.from_graph(graph)
    order = rng.permutation(sets.n_persons).astype(np.int64)
    for cutoff in (0.3, 1.0, 2.5):
        for kernel in (_l1_descent, _l2_descent, _greedy):
            _same(kernel, sets.indptr, sets.indices, order, cutoff, sets.n_items)
    max_items = 2
    degrees = sets.degrees()
    heavy = degrees > max_items
    bounds = degrees[heavy][:, None] - np.arange(max_items)[None, :]
    offsets = rng.integers(0, bounds).reshape(-1) if heavy.any() else np.zeros(0, np.int64)
    out_indptr = np.zeros_like(sets.indptr)
    np.cumsum(np.minimum(degrees, max_items), out=out_indptr[1:])
    args = (sets.indptr, sets.indices, out_indptr, offsets, max_items)
    outs = []
    for form in (_partial_shuffles.interpreted, _partial_shuffles.compiled):
        largest = max(int(degrees.max(initial=0)), 1)
        positions, chosen = np.empty(largest, np.int64), np.zeros(largest, bool)
        out = np.empty(int(out_indptr[-1]), np.int32)
        form(*args, positions, chosen, out)
        outs.append(out)
    assert np.array_equal(*outs)
