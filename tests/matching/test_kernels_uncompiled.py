"""The compiled kernels run as plain Python, where every array access is bounds-checked.

Every kernel of ``matching`` and ``mechanisms`` (incremental, greedy, sampling, GEM's envelope,
the set-union capping and policies), the keyed pair hash and the reader's CSR construction
(``dpcount.graph.csr_kernels``) run here; the script fails if a kernel was not reached.

Numba does not check bounds, so an indexing slip corrupts memory silently (an early version of
the incremental kernel over-filled its visit list that way).  Running the same kernels with
``NUMBA_DISABLE_JIT=1`` in a subprocess turns any such slip into an IndexError.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import importlib, pkgutil
    import numpy as np
    import matching, mechanisms
    from dpcount import PersonItemGraph
    from dpcount.common.jit import Kernel
    from matching.flow import flow_curve
    from matching.greedy import greedy_curve
    from matching.incremental import _incremental_kernel, incremental_curve
    from matching.sampling import pair_ranks, sampling_curve
    from mechanisms.generalized_exponential import (
        gem_normalized_scores,
        gem_normalized_scores_naive,
    )
    from mechanisms.set_union._bounding import CappedSets, cap_contributions
    from mechanisms.set_union.greedy_policy import greedy_policy_weights
    from mechanisms.set_union.policy import (
        l1_descent_units,
        l1_descent_weights,
        l2_descent_weights,
    )
    from tests.matching.reference import literal_greedy
    from tests.mechanisms.set_union.audit import (
        reference_l1_descent,
        reference_l1_descent_units,
        reference_l2_descent,
    )

    rng = np.random.default_rng(2024)
    checked = 0
    for case in range(12):
        n, m = int(rng.integers(20, 160)), int(rng.integers(20, 160))
        degrees = rng.integers(1, 5 + case % 4, size=n)
        persons = np.repeat(np.arange(n), degrees)
        items = rng.integers(0, m, size=persons.size)
        graph = PersonItemGraph.from_pairs(persons, items)
        exact = flow_curve(graph, 8)
        assert incremental_curve(graph, 8).tolist() == exact.tolist(), case
        compiled_path = _incremental_kernel.compiled(graph.indptr, graph.indices, graph.n_items, 8)
        assert compiled_path[0].tolist() == exact[: compiled_path[0].size].tolist(), case
        greedy = greedy_curve(graph, 8)
        assert greedy.tolist() == [literal_greedy(graph, ell) for ell in range(1, 9)], case
        sampled = sampling_curve(graph, 8, rng=case)
        assert np.all(sampled <= exact) and np.all(np.diff(sampled) >= 0), case
        ranks = pair_ranks(graph, rng=case)
        for p in range(graph.n_persons):
            mine = ranks[graph.indptr[p] : graph.indptr[p + 1]]
            assert sorted(mine.tolist()) == list(range(mine.size)), case
        sets = CappedSets.from_graph(graph)
        capped = cap_contributions(sets, 3, rng)
        for p in range(n):
            kept = capped.indices[capped.indptr[p] : capped.indptr[p + 1]]
            held = sets.indices[sets.indptr[p] : sets.indptr[p + 1]]
            assert kept.size == min(3, held.size) and set(kept) <= set(held), case
            assert np.all(np.diff(kept) > 0), case
        order = rng.permutation(n)
        for cutoff in (0.5, 2.0, 7.5):
            l1 = l1_descent_weights(capped, order, cutoff)
            assert np.allclose(l1, reference_l1_descent(capped, order, cutoff)), case
            l2 = l2_descent_weights(capped, order, cutoff)
            assert np.allclose(l2, reference_l2_descent(capped, order, cutoff)), case
            units = l1_descent_units(capped, order, int(cutoff * 8), 8)
            assert np.array_equal(
                units, reference_l1_descent_units(capped, order, int(cutoff * 8), 8)
            ), case
            greedy_h = greedy_policy_weights(capped, order, cutoff)
            assert greedy_h.sum() <= n + 1e-9 and np.all(greedy_h <= cutoff + 1e-9), case
        checked += 1
    for size in (40, 3000):  # GEM's envelope: interpreted below 2048 candidates, else "compiled"
        q, sens = rng.normal(0, 50, size), rng.integers(1, 30, size).astype(float)
        fast = gem_normalized_scores(q, sens, epsilon=1.0, beta=0.05)
        assert np.allclose(fast, gem_normalized_scores_naive(q, sens, epsilon=1.0, beta=0.05))
    # String label keys: XXH64 over every length class (< 4, < 8, < 32 and ≥ 32 bytes).
    from dpcount.common.hashing import label_keys
    words = np.array(["é" * k + "x" * (k % 3) for k in range(40)])
    assert np.unique(label_keys(words)).size == words.size
    # Set-union basic weights (fixed-point sums) and the grouped curves.
    from dpcount.graph import GroupedGraph
    from matching import dc_curve
    from matching.grouped import grouped_curves
    from mechanisms.set_union.weighted import basic_weights
    w = basic_weights(capped, 2)
    per_pair = capped.degrees()[capped.person_of_pair()] ** -0.5
    exact = np.bincount(capped.indices, per_pair, minlength=capped.n_items)
    assert np.all(w <= exact + 1e-12)
    assert np.all(exact - w <= capped.holders() * 2.0**-30 + 1e-12)
    persons, groups = rng.integers(0, 30, 400), rng.integers(0, 4, 400)
    grouped = GroupedGraph.from_triples(persons, groups, rng.integers(0, 25, 400))
    for method in ("auto", "greedy"):
        curves = grouped_curves(grouped, 6, method)
        for g, label in enumerate(grouped.group_labels):
            assert curves[g].tolist() == dc_curve(grouped.group(label), 6, method).tolist()
    assert grouped_curves(grouped, 6, "sampling", rng=3).shape == (grouped.n_groups, 6)
    # The reader's CSR by sorted keys (compiled only from ~2M pairs on in real use).
    from dpcount.graph.csr_kernels import csr_by_sorting
    persons = rng.integers(0, 50, 600)
    items = rng.integers(0, 40, 600)
    indptr, indices = csr_by_sorting(
        [persons[:250].astype(np.int32), persons[250:].astype(np.int32)],
        [items[:250].astype(np.int32), items[250:].astype(np.int32)],
        60,
        40,
    )
    keys = np.unique(persons * 40 + items)
    assert indptr.tolist() == np.searchsorted(keys // 40, np.arange(61)).tolist()
    assert indices.tolist() == (keys % 40).tolist()
    # The exact noise samplers' compiled form (64-bit words, every row bounded); large σ²
    # makes some rows pending (left for Python ints), which must not read out of bounds either.
    from mechanisms.noise import _kernels as noise_kernels
    from mechanisms.noise.counter import new_state, noise_key, round_keys
    template = np.array(new_state(round_keys(noise_key(1)), 0, 0), dtype=np.uint64)
    rows = np.arange(60, dtype=np.uint64)
    out, pending = np.empty(rows.size, np.int64), np.zeros(rows.size, np.uint8)
    noise_kernels.laplace_rows.compiled(template, rows, 7, 2, out, pending)
    assert not pending.any() and out.min() < 0 < out.max()
    cases = ((9, 4, 2, False), (10**9, 1, 31623, False), (10**12, 1, 10**6 + 1, True))
    for a, b, t, split in cases:
        noise_kernels.gaussian_rows.compiled(template, rows, a, b, t, split, out, pending)
    print("checked", checked)

    # Every kernel of both packages, the keyed pair hash and the reader's CSR must have run above
    # (in either form).
    unused = []
    names = ["dpcount.common.hashing", "dpcount.graph.csr_kernels"]
    for package in (matching, mechanisms):
        names += [i.name for i in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    for module_name in names:
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            if isinstance(value, Kernel) and value.__module__ == module_name:
                forms = (value._compiled, value._interpreted, value._inlined)
                if all(form is None for form in forms):
                    unused.append(f"{module_name}.{name}")
    print("unexercised", sorted(set(unused)))
    """
)


def test_kernels_without_jit_have_no_out_of_bounds_access() -> None:
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(root)}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "checked 12" in result.stdout
    assert "unexercised []" in result.stdout, result.stdout


def test_a_search_never_revisits_its_start_within_a_round() -> None:
    import numpy as np

    from matching.incremental import _augment

    # Person 0 holds item 0, owned by person 1, which holds nothing free: the search fails.
    indptr, indices = np.array([0, 1, 2]), np.array([0, 0], dtype=np.int32)
    owner, pointer = np.array([1]), np.array([1, 2])
    dead, stamp = np.zeros(2, dtype=np.bool_), np.zeros(2, dtype=np.int64)
    visited = np.full(2, -1, dtype=np.int64)
    stacks = [np.empty(2, dtype=np.int64) for _ in range(3)]
    args = (indptr, indices, owner, pointer, dead, stamp, 7, visited)
    found, count = _augment(0, *args, 0, *stacks)
    assert (found, count, sorted(visited.tolist())) == (False, 2, [0, 1])
    for start in (0, 1):  # both already visited with stamp 7: nothing is appended again
        assert _augment(start, *args, count, *stacks) == (False, 2)
