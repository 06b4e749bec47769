"""Release time with exact noise against floating-point noise: shifted inverse and n-grams.

The shifted inverse selects its output with exact coins by default, and the n-gram mechanisms
add exact discrete Laplace or Gaussian noise; ``noise="float"`` keeps the NumPy samplers for
Monte-Carlo sweeps.  This script times one whole release both ways, in the same run, on the
built-in data sets (shifted inverse) and on the generated corpora of
``benchmarks/bayesian_ngrams.py`` (n-grams), and reports the ratio exact/float.

Run ``python -m benchmarks.exact_releases`` (``--smoke`` for a tiny run, ``--out DIR``).
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

from benchmarks._common import machine, markdown_table, report_main
from benchmarks.bayesian_ngrams import generate_corpus
from dpcount import datasets
from mechanisms import shifted_inverse
from mechanisms.bayesian_ngrams import (
    bayesian_dp,
    end_to_end_dp,
    laplace_ngrams,
    laplace_ngrams_public,
)

REPEAT = 3
FULL_GRAPHS = ("southern-women", "fashion-like", "reddit-like")
SMOKE_GRAPHS = ("southern-women",)
FULL_CORPORA = ((3000, 3000), (3000, 100_000))  # (persons, public vocabulary)
SMOKE_CORPORA = ((60, 80),)


def cpu_seconds(fn: Callable[[], Any], repeat: int) -> float:
    """Smallest CPU time (this process) of ``repeat`` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def _both(call: Callable[[str, int], Any], repeat: int) -> tuple[float, float]:
    """CPU seconds of ``call(noise, seed)`` for exact and float noise (after one warm-up)."""
    call("exact", 0)  # compiled kernels loaded, caches warm
    call("float", 0)
    exact = cpu_seconds(lambda: call("exact", 1), repeat)
    floating = cpu_seconds(lambda: call("float", 1), repeat)
    return exact, floating


def shifted_inverse_rows(names: tuple[str, ...], repeat: int) -> list[list[Any]]:
    rows = []
    for name in names:
        graph = datasets.load(name)
        upper = 10.0 ** (len(str(graph.n_items)) + 1)

        def call(noise: str, seed: int, graph: Any = graph, upper: float = upper) -> Any:
            return shifted_inverse(graph, 1.0, upper=upper, noise=noise, rng=seed)

        exact, floating = _both(call, repeat)
        rows.append([name, f"{graph.n_persons:,} persons", exact, floating, exact / floating])
    return rows


def _ngram_calls(graph: Any, public: Any, cap: int) -> dict[str, Callable[[str, int], Any]]:
    """One release per n-gram mechanism as ``call(noise, seed)``."""
    return {
        "laplace_ngrams": lambda n, s: laplace_ngrams(
            graph, public, 0.5, max_contribution=cap, noise=n, rng=s
        ),
        "laplace_ngrams_public": lambda n, s: laplace_ngrams_public(
            graph, public, 0.5, max_contribution=cap, noise=n, rng=s
        ),
        "bayesian_dp": lambda n, s: bayesian_dp(
            graph,
            public,
            0.5,
            1e-6,
            clip_slope=1e-3,
            max_count=1,
            private_weight=0.5,
            noise=n,
            rng=s,
        ),
        "end_to_end_dp": lambda n, s: end_to_end_dp(
            graph, public, 0.5 / 3, 1.0 / 3, 1e-6, max_count=1, noise=n, rng=s
        ),
    }


def ngram_rows(corpora: tuple[tuple[int, int], ...], repeat: int) -> list[list[Any]]:
    rows = []
    for persons, vocab in corpora:
        corpus = generate_corpus(persons, vocab, mismatch=0.25, seed=0)
        calls = _ngram_calls(corpus.graph, corpus.public, max(1, persons // 1000))
        size = f"{persons:,} persons, {corpus.public[0].size:,} n-grams"
        for name, call in calls.items():
            exact, floating = _both(call, repeat)
            rows.append([name, size, exact, floating, exact / floating])
    return rows


def report(si_rows: list[list[Any]], ngram: list[list[Any]], repeat: int) -> str:
    header = ["release", "data", "exact CPU s", "float CPU s", "exact/float"]
    return "\n".join(
        [
            "# Releases with exact noise vs floating-point noise",
            "",
            f"Machine: {machine()} (shared with other jobs; CPU seconds of this process, best of "
            f"{repeat}, after a warm-up call of each).",
            "",
            "## Shifted inverse (LP inverse, ε = 1, β = 0.05, log grid up to 10^(digits + 1))",
            "",
            markdown_table(header, si_rows),
            "",
            "## N-gram distributions (generated Zipf corpora, ε = 0.5, δ = 10⁻⁶)",
            "",
            markdown_table(header, ngram),
            "",
        ]
    )


def _build(smoke: bool) -> str:
    repeat = 1 if smoke else REPEAT
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # float noise and local sensitivities, stated above
        si_rows = shifted_inverse_rows(SMOKE_GRAPHS if smoke else FULL_GRAPHS, repeat)
        ngram = ngram_rows(SMOKE_CORPORA if smoke else FULL_CORPORA, repeat)
    return report(si_rows, ngram, repeat)


def main(argv: list[str] | None = None) -> int:
    return report_main(__doc__, "exact_releases.md", _build, argv)


if __name__ == "__main__":
    sys.exit(main())
