"""The compiled kernels run as plain Python, where every array access is bounds-checked.

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
    import numpy as np
    from dpcount import PersonItemGraph
    from matching.flow import flow_curve
    from matching.greedy import greedy_curve
    from matching.incremental import incremental_curve
    from tests.matching.reference import literal_greedy

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
        greedy = greedy_curve(graph, 8)
        assert greedy.tolist() == [literal_greedy(graph, ell) for ell in range(1, 9)], case
        checked += 1
    print("checked", checked)
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
