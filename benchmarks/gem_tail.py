"""GEM's choice of ℓ with the closed-form flat tail against the dense computation.

``dp_distinct_count`` chooses ℓ̂ ∈ {1, …, ℓ_max} with GEM.  Up to ``DENSE_ELL_MAX`` = 2¹⁶ it
builds all ℓ_max utilities (the reference); above it it keeps only the head up to the largest
degree and samples the flat tail in closed form (:mod:`mechanisms.gem_tail`, same distribution).
This script times one selection both ways at several ℓ_max on a fixed graph, each in a fresh
subprocess so that its peak RSS is its own, and reports the ratio tail/dense.  The dense run is
skipped where its arrays would not fit (ℓ_max = 2³¹ − 1 needs > 16 GiB).

Run ``python -m benchmarks.gem_tail`` (``--smoke`` for a tiny run, ``--out DIR``).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks._common import machine, markdown_table, report_main

ROOT = Path(__file__).resolve().parents[1]
FULL_ELL_MAX = (100, 2**16, 2**20, 2**24, 2**31 - 1)
SMOKE_ELL_MAX = (100, 2**31 - 1)
DENSE_LIMIT = 2**24  # dense arrays beyond this take GiBs: not run

# One selection on DC(D;ℓ) of a fixed graph (max degree 40), in a fresh interpreter.
_SCRIPT = """
import json, math, resource, sys, time
import numpy as np
import matching
from dpcount import PersonItemGraph
from mechanisms.generalized_exponential import gem
from mechanisms.gem_tail import LinearTailGEM
ell_max, method = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(0)
graph = PersonItemGraph.from_sets(
    {f"p{k}": set(rng.integers(0, 5000, size=1 + k % 40).tolist()) for k in range(2000)}
)
head = min(ell_max, int(graph.degrees().max()))
curve = matching.dc_curve(graph, head)
eps, beta = 0.5, 0.05
slope = math.log(1 / (2 * beta)) / eps
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
if method == "dense":
    full = np.concatenate([curve, np.full(ell_max - head, curve[-1])]).astype(float)
    ells = np.arange(1, ell_max + 1, dtype=float)
    ell = 1 + gem(full - slope * ells, ells, eps, beta, rng=1)
else:
    ells = np.arange(1, head + 1, dtype=float)
    tail = LinearTailGEM(curve - slope * ells, float(curve[-1]), slope, ell_max, eps, beta)
    ell = tail.sample(1)
seconds = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "ell": int(ell), "rss_mb": after / 1024,
                  "rss_added_mb": (after - before) / 1024}))
"""


def measure(ell_max: int, method: str) -> dict[str, Any]:
    """Seconds of one selection and the subprocess's peak RSS (MB)."""
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(ell_max), method],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{method} at {ell_max} failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(ell_maxes: tuple[int, ...]) -> list[list[Any]]:
    """One table row per ℓ_max: dense and tail seconds and RSS, and the ratio of the times."""
    rows = []
    for ell_max in ell_maxes:
        tail = measure(ell_max, "tail")
        dense = measure(ell_max, "dense") if ell_max <= DENSE_LIMIT else None
        rows.append(
            [
                ell_max,
                dense["seconds"] if dense else "not run (> 16 GiB)",
                dense["rss_mb"] if dense else math.nan,
                tail["seconds"],
                tail["rss_mb"],
                tail["seconds"] / dense["seconds"] if dense else math.nan,
            ]
        )
    return rows


def report(rows: list[list[Any]]) -> str:
    header = ["ℓ_max", "dense s", "dense peak MB", "tail s", "tail peak MB", "tail/dense"]
    return "\n".join(
        [
            "# GEM's choice of ℓ: closed-form flat tail vs dense",
            "",
            f"Machine: {machine()} (shared; times vary with load).",
            "",
            "One GEM selection (ε = 0.5, β = 0.05) on DC(D;ℓ) − (ℓ/ε)·ln(1/(2β)) of a fixed graph "
            "of 2,000 persons with degrees 1..40, each run in a fresh subprocess; peak MB is that "
            "process's peak RSS (interpreter and imports included, ~200 MB).",
            "",
            markdown_table(header, rows),
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    return report_main(
        __doc__,
        "gem_tail.md",
        lambda smoke: report(run(SMOKE_ELL_MAX if smoke else FULL_ELL_MAX)),
        argv,
    )


if __name__ == "__main__":
    sys.exit(main())
