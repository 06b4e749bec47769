"""DPDistinctCount: end-to-end time and the selection × counting matrix of Knop & Steinke.

Two parts, written as Markdown to ``benchmarks/results/dp_distinct_count.md``:

1. **Time** of ``mechanisms.dp_distinct_count`` on the Reddit-like preset
   (``dpcount.datasets.reddit_like(scale_factor=1.0, seed=0)``, ε = 1, β = 0.05, ℓ_max = 100, exact
   discrete noise): end to end, and split into the curve DC(D;ℓ) and the release (GEM + noise),
   for each counting method.
2. **Tables 4–7** of the paper: ℓ chosen by the maximum degree, the 90th degree percentile, the
   non-private maximum of the utility, or GEM (the only private choice); DC(D;ℓ) counted by
   per-person sampling, the greedy Algorithm 2 or exact matching (Algorithm 1); the 10th, 50th
   and 90th percentiles over the runs of ℓ̂, of the non-private count DC(D;ℓ̂) (the paper's
   "Max Utility Matching"-style rows), of the unshifted DP count DC(D;ℓ̂) + noise (the paper's
   "… DP Matching" rows) and of the released lower bound ν̂, plus the fraction of runs with
   ν̂ ≤ DC(D).  Deterministic curves are computed once per data set and reused by every run
   (``dp_distinct_count_from_curve``); a sampling curve is drawn afresh for every run.

Run ``python -m benchmarks.dp_distinct_count`` (``--smoke`` for a seconds-long version,
``--out DIR`` to write elsewhere, ``--no-tpch`` to skip the four TPC-H queries of
``dpcount.datasets.tpch``, whose data is generated at scale factor 1 on first use).
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import matching
from benchmarks._common import best_time, machine, markdown_table, write_result
from dpcount import PersonItemGraph, datasets
from dpcount.errors import PrivacyLeakWarning
from mechanisms.distinct_count import (
    DistinctCountResult,
    curve_length,
    dp_distinct_count,
    dp_distinct_count_from_curve,
)

EPSILON, BETA, ELL_MAX = 1.0, 0.05, 100
COUNTINGS = ("sampling", "greedy", "matching")
_METHOD = {"sampling": "sampling", "greedy": "greedy", "matching": "auto"}
SELECTIONS = {  # our name -> the paper's row label (Tables 4–7)
    "max_degree": "Max Contrib",
    "percentile": "90th PC Contrib",
    "max_utility": "Max Utility",
    "gem": "DP Max Utility (GEM)",
}
RESULT_NAME = "dp_distinct_count.md"


@dataclass(frozen=True)
class Row:
    """Percentiles (10, 50, 90) over the runs of one (selection, counting) cell."""

    selection: str
    counting: str
    runs: int
    ell: np.ndarray
    count: np.ndarray
    unshifted: np.ndarray
    estimate: np.ndarray
    coverage: float


def _percentiles(x: Sequence[float]) -> np.ndarray:
    return np.percentile(np.asarray(x, dtype=float), [10, 50, 90])


def matrix(
    graph: PersonItemGraph, runs: int, seed: int, sampling_runs: int | None = None
) -> list[Row]:
    """Every (selection, counting) cell: ``runs`` releases each (``sampling_runs`` for the
    sampling counting, whose curve is redrawn for every release)."""
    degrees = graph.degrees()
    length = max(curve_length(degrees, ELL_MAX, s) for s in SELECTIONS)
    root = np.random.SeedSequence(seed)
    rows: list[Row] = []
    for counting, stream in zip(COUNTINGS, root.spawn(len(COUNTINGS)), strict=True):
        n = runs if counting != "sampling" or sampling_runs is None else sampling_runs
        curve_seeds, release_seeds = stream.spawn(2)
        if counting == "sampling":  # one fresh curve per run, shared by the selection rules
            curves = [
                matching.dc_curve(graph, length, method="sampling", rng=np.random.default_rng(s))
                for s in curve_seeds.spawn(n)
            ]
        else:
            curves = [matching.dc_curve(graph, length, method=_METHOD[counting])] * n
        for selection, sel_stream in zip(
            SELECTIONS, release_seeds.spawn(len(SELECTIONS)), strict=True
        ):
            results = []
            for curve, run in zip(curves, sel_stream.spawn(n), strict=True):
                selection_rng, noise_rng = (np.random.default_rng(s) for s in run.spawn(2))
                with warnings.catch_warnings():  # comparison points warn; their rows say so
                    warnings.simplefilter("ignore", PrivacyLeakWarning)
                    result = dp_distinct_count_from_curve(
                        curve,
                        degrees,
                        EPSILON,
                        beta=BETA,
                        ell_max=ELL_MAX,
                        counting=counting,  # type: ignore[arg-type]
                        selection=selection,  # type: ignore[arg-type]
                        selection_rng=selection_rng,
                        noise_rng=noise_rng,
                    )
                results.append(result)
            counts = [int(c[r.ell - 1]) for c, r in zip(curves, results, strict=True)]
            estimates = [float(r.estimate) for r in results]
            rows.append(
                Row(
                    selection=selection,
                    counting=counting,
                    runs=n,
                    ell=_percentiles([r.ell for r in results]),
                    count=_percentiles(counts),
                    unshifted=_percentiles([r.estimate + r.shift for r in results]),
                    estimate=_percentiles(estimates),
                    coverage=float(np.mean(np.array(estimates) <= graph.n_items)),
                )
            )
    return rows


def matrix_table(rows: list[Row]) -> str:
    header = [
        "selection",
        "counting",
        "runs",
        "ℓ̂ p10",
        "ℓ̂ p50",
        "ℓ̂ p90",
        "DC(D;ℓ̂) p10",
        "p50",
        "p90",
        "DC + noise p50",
        "ν̂ p10",
        "ν̂ p50",
        "ν̂ p90",
        "ν̂ ≤ DC(D)",
    ]
    body = []
    for r in rows:
        label = SELECTIONS[r.selection] + ("" if r.selection == "gem" else " (non-private)")
        body.append(
            [
                label,
                r.counting,
                r.runs,
                *(_fmt(x) for x in r.ell),
                *(_fmt(x) for x in r.count),
                _fmt(r.unshifted[1]),
                *(_fmt(x) for x in r.estimate),
                f"{100 * r.coverage:.0f}%",
            ]
        )
    return markdown_table(header, body)


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.1f}"


def timing(graph: PersonItemGraph, repeat: int) -> list[list[object]]:
    """Seconds for the whole call and for its two parts, per counting method."""
    rows: list[list[object]] = []
    degrees = graph.degrees()
    for counting in ("matching", "greedy", "sampling"):

        def whole(counting: Any = counting) -> DistinctCountResult:
            return dp_distinct_count(
                graph, EPSILON, beta=BETA, ell_max=ELL_MAX, counting=counting, rng=1
            )

        def curve(counting: str = counting) -> np.ndarray:
            return matching.dc_curve(graph, ELL_MAX, method=_METHOD[counting], rng=2)

        total, result = best_time(whole, repeat)
        curve_time, dc = best_time(curve, repeat)

        def release(counting: Any = counting, dc: np.ndarray = dc) -> DistinctCountResult:
            return dp_distinct_count_from_curve(
                dc,
                degrees,
                EPSILON,
                beta=BETA,
                ell_max=ELL_MAX,
                counting=counting,
                selection_rng=3,
                noise_rng=4,
            )

        release_time, _ = best_time(release, repeat)
        rows.append([counting, total, curve_time, release_time, result.ell, result.estimate])
    return rows


def _graphs(smoke: bool, tpch: bool) -> list[tuple[str, PersonItemGraph, int | None]]:
    """(name, graph, runs for the sampling counting or None for all runs)."""
    if smoke:
        return [
            ("fashion-like (scale 0.25)", datasets.fashion_like(scale_factor=0.25, seed=0), None),
            ("reddit-like (scale 0.002)", datasets.reddit_like(scale_factor=0.002, seed=0), None),
        ]
    out: list[tuple[str, PersonItemGraph, int | None]] = [
        ("fashion-like", datasets.fashion_like(scale_factor=1.0, seed=0), None),
        ("reddit-like", datasets.reddit_like(scale_factor=1.0, seed=0), None),
    ]
    if tpch:
        out += [(f"TPC-H {q} (SF 1)", datasets.tpch(q, 1.0), None) for q in datasets.TPCH_QUERIES]
    return out


def main(argv: Sequence[str] | None = None) -> Path:
    """Run the benchmark and write the Markdown report; returns its path."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, a few seconds")
    parser.add_argument("--out", type=Path, default=None, help="output directory")
    parser.add_argument("--runs", type=int, default=None, help="releases per cell (100)")
    parser.add_argument("--no-tpch", action="store_true", help="skip the TPC-H queries (SF 1)")
    args = parser.parse_args(argv)
    runs = args.runs or (5 if args.smoke else 100)
    started = time.perf_counter()

    sections = [
        "# DPDistinctCount (Knop & Steinke 2023): time and the selection × counting matrix",
        "",
        f"Machine: {machine()}.  ε = {EPSILON:g}, β = {BETA:g}, ℓ_max = {ELL_MAX}, exact "
        "discrete Laplace noise.  Generated by `python -m benchmarks.dp_distinct_count"
        f"{' --smoke' if args.smoke else ''}`.",
        "",
        "## End-to-end time",
        "",
    ]
    timed = (
        datasets.reddit_like(scale_factor=0.01, seed=0)
        if args.smoke
        else datasets.reddit_like(1.0, 0)
    )
    sections += [
        f"Reddit-like preset{' (scale 0.01)' if args.smoke else ''}: {timed!r}; best of "
        f"{1 if args.smoke else 3} runs, in seconds (the first call of a process also loads "
        "the compiled kernels, not counted).",
        "",
        markdown_table(
            ["counting", "dp_distinct_count", "curve DC(D;ℓ)", "release", "ℓ̂", "ν̂"],
            timing(timed, 1 if args.smoke else 3),
        ),
        "",
    ]
    for index, (name, graph, sampling_runs) in enumerate(_graphs(args.smoke, not args.no_tpch)):
        # A seed per data set, so that no two tables share their noise draws.
        rows = matrix(graph, runs, seed=2024 + index, sampling_runs=sampling_runs)
        d = graph.summary()
        sections += [
            f"## {name}",
            "",
            f"{d.n_persons:,} persons, {d.n_pairs:,} pairs, DC(D) = {d.n_items:,} distinct "
            f"items; degrees: median {d.degree_median:g}, p90 {d.degree_p90:g}, max "
            f"{d.degree_max:,}.  {runs} releases per row"
            + (f" ({sampling_runs} for sampling)" if sampling_runs else "")
            + ".  DC(D;ℓ̂) is the non-private count at the chosen ℓ; DC + noise the unshifted "
            "DP count (what the paper's tables report for DP counting); ν̂ the released lower "
            "bound (DC + noise − shift).",
            "",
            matrix_table(rows),
            "",
        ]
    sections.append(f"Total benchmark time: {time.perf_counter() - started:,.0f} s.")
    return write_result(RESULT_NAME, "\n".join(sections) + "\n", args.out)


if __name__ == "__main__":
    print(main())
