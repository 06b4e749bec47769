"""Exact discrete noise against NumPy's floating-point noise: seconds and memory per draw.

``mechanisms.noise.discrete_gaussian`` (Canonne–Kamath–Steinke Algorithm 3) and
``discrete_laplace`` (Algorithm 2) draw each value by an exact integer rejection loop over a
counter-based stream.  This script times n draws of each at several σ (or scales) against
NumPy's ``normal`` (``laplace``) of the same size in the same run, and reports the ratio, the
CPU seconds (the machine is shared, so wall time moves with the load), the peak of traced
allocations, and the growth of the time with n.

Run ``python -m benchmarks.noise`` (``--smoke`` for a tiny run, ``--out DIR``).
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from benchmarks._common import machine, markdown_table, report_main
from mechanisms.noise import discrete_gaussian, discrete_laplace

FULL_SIZES = (10_000, 100_000, 1_000_000)
SMOKE_SIZES = (3_000,)
SIGMAS = (1, 10, 1000)
REPEAT = 3


def cpu_seconds(fn: Callable[[], Any], repeat: int) -> float:
    """Smallest CPU time (this process) of ``repeat`` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def peak_mb(fn: Callable[[], Any]) -> float:
    """Peak traced allocation of one call (MB)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def run(sizes: tuple[int, ...], repeat: int) -> list[list[Any]]:
    """One row per (distribution, σ, n): exact and NumPy seconds, ratio, ns per draw, peak MB."""
    discrete_gaussian(1, rng=0, size=max(sizes))  # compile (or load the cached kernels) first
    discrete_laplace(1, rng=0, size=max(sizes))
    rows = []
    for sigma in SIGMAS:
        cases = [
            (
                "Gaussian",
                lambda n, s=sigma: discrete_gaussian(Fraction(s * s), rng=1, size=n),
                lambda n, s=sigma: np.random.default_rng(1).normal(0.0, s, n),
            ),
            (
                "Laplace",
                lambda n, s=sigma: discrete_laplace(Fraction(s), rng=1, size=n),
                lambda n, s=sigma: np.random.default_rng(1).laplace(0.0, s, n),
            ),
        ]
        for name, exact, reference in cases:
            for n in sizes:
                exact_s = cpu_seconds(lambda e=exact, n=n: e(n), repeat)
                numpy_s = cpu_seconds(lambda r=reference, n=n: r(n), repeat)
                rows.append(
                    [
                        name,
                        sigma,
                        n,
                        exact_s,
                        numpy_s,
                        exact_s / max(numpy_s, 1e-9),
                        exact_s / n * 1e9,
                        peak_mb(lambda e=exact, n=n: e(n)),
                        peak_mb(lambda r=reference, n=n: r(n)),
                    ]
                )
    return rows


def report(rows: list[list[Any]], repeat: int) -> str:
    header = [
        "noise",
        "σ or scale",
        "n",
        "exact CPU s",
        "NumPy CPU s",
        "exact/NumPy",
        "exact ns/draw",
        "exact peak MB",
        "NumPy peak MB",
    ]
    return "\n".join(
        [
            "# Exact discrete noise vs NumPy floating-point noise",
            "",
            f"Machine: {machine()} (shared with other jobs; CPU seconds of this process, best of "
            f"{repeat}).",
            "",
            "`discrete_gaussian(σ², size=n)` (Canonne–Kamath–Steinke Algorithm 3) against "
            "`Generator.normal(0, σ, n)`, and `discrete_laplace(scale, size=n)` (Algorithm 2) "
            "against `Generator.laplace(0, scale, n)`.  Kernels compiled before timing (numba's "
            "on-disk cache makes that a one-off per machine).  Peak MB: traced allocations of one "
            "call (the exact samplers hold the row ids, the values and a pending flag per draw).",
            "",
            markdown_table(header, rows),
            "",
        ]
    )


def _build(smoke: bool) -> str:
    repeat = 1 if smoke else REPEAT
    return report(run(SMOKE_SIZES if smoke else FULL_SIZES, repeat), repeat)


def main(argv: list[str] | None = None) -> int:
    return report_main(__doc__, "noise.md", _build, argv)


if __name__ == "__main__":
    sys.exit(main())
