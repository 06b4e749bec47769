"""Knop & Steinke Table 2 on TPC-H: R2T, shifted inverse, DPApproxDistinctCount, DPDistinctCount.

For each of the four TPC-H distinct-count queries (``dpcount.datasets.tpch``: suppliers or
customers of nation 24, as in the shifted-inverse paper's queries) every mechanism is run
``--runs`` times (100 in the paper) at ε = 1; the error is the paper's trimmed mean: sort the
relative errors |estimate − DC(D)| / DC(D), drop the top and bottom 20 % (20 of 100) and average
the middle 60 %.  Results go to ``benchmarks/results/tpch_table2.md`` next to the published
numbers.

Parameters (each as in the paper's experiment; Knop & Steinke's public TPC-H script [ref] and
docs/algorithms.md §4–5):

* ε = 1 and β = 0.1 for every mechanism (the script passes 0.1 to all of them).
* DPDistinctCount / DPApproxDistinctCount: candidates ℓ = 1..ℓ_max with ℓ_max = 10⁷ − 1 for the
  supplier queries (PS.AQ, L.EP) and 9 999 for the customer queries (O.OD, L.RD), the script's
  ``range(1, 10**7)`` and ``range(1, 10000)``; GEM with the exponential mechanism.
* R2T: GS = the same ℓ_max and base 2, i.e. thresholds 2, 4, …, 2^⌊log₂ GS⌋ as Knop & Steinke
  describe it (§2); the R2T reference code's base 5.5 is reported as an extra row.
* Shifted inverse: LP inverse (the polynomial variant), log10 grid with step 0.001 up to
  10⁷ (supplier queries) or 10⁴ (customer queries), the bounds of the script.

Every run uses its own random stream.  Work that does not depend on the randomness — the DC(D;ℓ)
curve, the inverse values, GEM's selection probabilities — is computed once per query and
mechanism and reused across runs (the public functions recompute it on every call; their
end-to-end time for one release is reported separately).

Usage::

    python -m benchmarks.tpch_table2                 # full run (SF 1, 100 runs; ~5 min)
    python -m benchmarks.tpch_table2 --smoke         # SF 0.01, 10 runs, ℓ_max ≤ 1000
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import numpy.typing as npt

import matching
from benchmarks._common import machine, markdown_table, write_result
from dpcount import PersonItemGraph, datasets
from mechanisms.distinct_count import (
    DistinctCountResult,
    dp_distinct_count,
    dp_distinct_count_from_curve,
)
from mechanisms.laplace import laplace_lower_bound
from mechanisms.race_to_the_top import r2t, r2t_thresholds, release_r2t, truncated_counts
from mechanisms.shifted_inverse_mechanism import plan_shifted_inverse, shifted_inverse

QUERIES = ("PS.AQ", "L.EP", "O.OD", "L.RD")
EPSILON = 1.0
BETA = 0.1
TRIM = 0.2  # drop 20 % at each end: 20 of 100 runs (Knop & Steinke, Table 2 caption)
ELL_MAX = {"PS.AQ": 10**7 - 1, "L.EP": 10**7 - 1, "O.OD": 9_999, "L.RD": 9_999}
UPPER = {"PS.AQ": 1e7, "L.EP": 1e7, "O.OD": 1e4, "L.RD": 1e4}
SMOKE_ELL_MAX = 1_000

#: Knop & Steinke (2023), Table 2, for PS.AQ / L.EP / O.OD / L.RD.
PUBLISHED = {
    "R2T": (0.0658, 0.1759, 0.0061, 0.150),
    "Shifted inverse": (0.0553, 0.0584, 0.005, 0.0061),
    "DPApproxDistinctCount": (0.0140, 0.0110, 0.0008, 0.0037),
    "DPDistinctCount": (0.0100, 0.0096, 0.0008, 0.0001),
}
DATA_HEADER = ("query", "persons", "pairs", "DC(D)", "max degree", "ℓ_max = GS", "SI bound")
MECHANISMS = (
    "R2T",
    "R2T (base 5.5)",
    "Shifted inverse",
    "DPApproxDistinctCount",
    "DPDistinctCount",
)


# --------------------------------------------------------------------------------------------
# Error measure
# --------------------------------------------------------------------------------------------


def trimmed_relative_error(estimates: npt.ArrayLike, truth: float, trim: float = TRIM) -> float:
    """Mean of the middle relative errors after dropping ``trim`` of them at each end.

    Examples
    --------
    >>> round(trimmed_relative_error([96, 104, 100, 300, 90], 100, trim=0.2), 4)
    0.06
    """
    errors = np.sort(np.abs(np.asarray(estimates, dtype=float) - truth) / truth)
    cut = int(errors.size * trim)
    return float(errors[cut : errors.size - cut].mean())


def bootstrap_se(
    estimates: npt.ArrayLike, truth: float, rng: np.random.Generator, draws: int = 1000
) -> float:
    """Standard error of :func:`trimmed_relative_error` by resampling the runs."""
    values = np.asarray(estimates, dtype=float)
    stats = [
        trimmed_relative_error(values[rng.integers(values.size, size=values.size)], truth)
        for _ in range(draws)
    ]
    return float(np.std(stats, ddof=1))


# --------------------------------------------------------------------------------------------
# Mechanisms with their data-only work done once
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Runs:
    """Estimates of one mechanism on one query, with timings (seconds)."""

    estimates: np.ndarray
    setup: float  # data-dependent precomputation, once
    per_release: float  # mean time of one release given the precomputation
    end_to_end: float  # one call of the public function, from the graph


T = TypeVar("T")


def _timed(fn: Callable[[], T]) -> tuple[float, T]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def _repeat(
    draw: Callable[[np.random.Generator], float], streams: list[np.random.Generator]
) -> tuple[np.ndarray, float]:
    start = time.perf_counter()
    estimates = np.array([float(draw(s)) for s in streams])
    return estimates, (time.perf_counter() - start) / len(streams)


def run_r2t(
    graph: PersonItemGraph, gs: int, base: float, streams: list[np.random.Generator]
) -> Runs:
    thresholds = r2t_thresholds(gs, base)
    setup, counts = _timed(lambda: truncated_counts(graph, thresholds))

    def draw(rng: np.random.Generator) -> float:
        return release_r2t(
            counts, thresholds, EPSILON, beta=BETA, max_contribution=gs, base=base, rng=rng
        ).estimate

    estimates, per = _repeat(draw, streams)
    full, _ = _timed(lambda: r2t(graph, EPSILON, beta=BETA, max_contribution=gs, base=base, rng=0))
    return Runs(estimates, setup, per, full)


def run_shifted_inverse(
    graph: PersonItemGraph, upper: float, streams: list[np.random.Generator]
) -> Runs:
    setup, plan = _timed(lambda: plan_shifted_inverse(graph, EPSILON, beta=BETA, upper=upper))
    estimates, per = _repeat(lambda rng: plan.draw(rng).estimate, streams)
    full, _ = _timed(lambda: shifted_inverse(graph, EPSILON, beta=BETA, upper=upper, rng=0))
    return Runs(estimates, setup, per, full)


def full_curve(graph: PersonItemGraph, ell_max: int, method: str) -> np.ndarray:
    """DC(D;ℓ), ℓ = 1..ℓ_max, solving only up to the largest degree.

    Exact and greedy curves are flat from the largest degree on (docs/algorithms.md §1–2), so
    padding with the last value gives the same array as ``matching.dc_curve(graph, ℓ_max)``.
    """
    length = max(1, min(ell_max, int(graph.degrees().max(initial=0))))
    short = matching.dc_curve(graph, length, method=method)
    return np.concatenate([short, np.full(ell_max - length, short[-1], dtype=np.int64)])


def run_dp_distinct_count(
    graph: PersonItemGraph, counting: str, ell_max: int, streams: list[np.random.Generator]
) -> Runs:
    """DPDistinctCount (``counting="matching"``) or DPApproxDistinctCount (``"greedy"``).

    The first release is a full ``dp_distinct_count_from_curve`` call with diagnostics, which
    also returns GEM's exact selection probabilities; later releases draw ℓ̂ from those
    probabilities and release DC(D;ℓ̂) with ``laplace_lower_bound`` at ε/2 — the same two steps
    (Algorithm 1 lines 13–14).  GEM's scores over 10⁷ candidates take seconds, which would
    otherwise be repeated 100 times.
    """
    method = "auto" if counting == "matching" else "greedy"
    degrees = graph.degrees()

    def prepare() -> tuple[np.ndarray, DistinctCountResult]:
        curve = full_curve(graph, ell_max, method)
        first = dp_distinct_count_from_curve(
            curve,
            degrees,
            EPSILON,
            beta=BETA,
            ell_max=ell_max,
            counting=counting,  # type: ignore[arg-type]
            selection_rng=streams[0].spawn(1)[0],
            noise_rng=streams[0],
            diagnostics=True,
        )
        return curve, first

    setup, (curve, first) = _timed(prepare)
    assert first.probabilities is not None
    cumulative = np.cumsum(first.probabilities)

    def draw(rng: np.random.Generator) -> float:
        selection, noise = rng.spawn(2)
        ell = 1 + int(np.searchsorted(cumulative, selection.random() * cumulative[-1], "right"))
        ell = min(ell, ell_max)
        release = laplace_lower_bound(int(curve[ell - 1]), ell, EPSILON / 2, BETA, rng=noise)
        return release.estimate

    rest, per = _repeat(draw, streams[1:]) if len(streams) > 1 else (np.zeros(0), 0.0)
    estimates = np.concatenate([[float(first.estimate)], rest])
    full, _ = _timed(
        lambda: dp_distinct_count(
            graph,
            EPSILON,
            beta=BETA,
            ell_max=ell_max,
            counting=counting,  # type: ignore[arg-type]
            rng=0,
        )
    )
    return Runs(estimates, setup, per, full)


# --------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------


def _streams(seed: int, query: int, mechanism: int, runs: int) -> list[np.random.Generator]:
    return [
        np.random.default_rng(s)
        for s in np.random.SeedSequence([seed, query, mechanism]).spawn(runs)
    ]


def run_query(
    name: str, graph: PersonItemGraph, runs: int, ell_max: int, seed: int
) -> dict[str, Runs]:
    q = QUERIES.index(name)
    jobs: dict[str, Callable[[list[np.random.Generator]], Runs]] = {
        "R2T": lambda s: run_r2t(graph, ell_max, 2, s),
        "R2T (base 5.5)": lambda s: run_r2t(graph, ell_max, 5.5, s),
        "Shifted inverse": lambda s: run_shifted_inverse(graph, UPPER[name], s),
        "DPApproxDistinctCount": lambda s: run_dp_distinct_count(graph, "greedy", ell_max, s),
        "DPDistinctCount": lambda s: run_dp_distinct_count(graph, "matching", ell_max, s),
    }
    out = {}
    for m, (mechanism, job) in enumerate(jobs.items()):
        out[mechanism] = job(_streams(seed, q, m, runs))
        print(f"  {name:6s} {mechanism:22s} done ({out[mechanism].setup:.1f} s setup)", flush=True)
    return out


def _r2t_note(graph: PersonItemGraph, gs: int, base: float) -> str:
    """R2T without its noise: max_j [DC(D;τ_j) − k·τ_j·ln(k/β)/ε] and its relative error."""
    thresholds = r2t_thresholds(gs, base)
    counts = truncated_counts(graph, thresholds)
    k = len(thresholds)
    shifts = [k * t * math.log(k / BETA) / EPSILON for t in thresholds]
    values = [c - s for c, s in zip(counts, shifts, strict=True)]
    j = int(np.argmax(values))
    error = (graph.n_items - max(0.0, values[j])) / graph.n_items
    return (
        f"k = {k}, best τ = {thresholds[j]:,}: DC(D;τ) = {counts[j]:,}, shift = {shifts[j]:,.0f}"
        f" → predicted error {error:.3f}"
    )


def render(
    results: dict[str, dict[str, Runs]],
    graphs: dict[str, PersonItemGraph],
    runs: int,
    scale_factor: float,
    ell_max: dict[str, int],
    seed: int,
) -> str:
    rng = np.random.default_rng(seed)
    queries = [q for q in QUERIES if q in results]
    header = ["mechanism"] + [f"{q} ours ± se" for q in queries] + [f"{q} paper" for q in queries]
    rows = []
    flags: list[str] = []
    for mechanism in MECHANISMS:
        ours, paper = [], []
        for q in queries:
            r = results[q][mechanism]
            truth = graphs[q].n_items
            err = trimmed_relative_error(r.estimates, truth)
            se = bootstrap_se(r.estimates, truth, rng)
            ours.append(f"{err:.4f} ± {se:.4f}")
            published = PUBLISHED.get(mechanism)
            if published is None:
                paper.append("–")
                continue
            value = published[QUERIES.index(q)]
            paper.append(f"{value:.4f}")
            # Published numbers carry run-to-run noise too: compare at 3·√2 standard errors.
            if abs(err - value) > 3 * math.sqrt(2) * max(se, 1e-12):
                flags.append(f"{mechanism} on {q}: ours {err:.4f} vs paper {value:.4f}")
        rows.append([mechanism, *ours, *paper])

    time_header = ["mechanism"] + [f"{q} setup / release / end-to-end (s)" for q in queries]
    time_rows = []
    for mechanism in MECHANISMS:
        cells = []
        for q in queries:
            r = results[q][mechanism]
            cells.append(f"{r.setup:.2f} / {r.per_release * 1e3:.2f} ms / {r.end_to_end:.2f}")
        time_rows.append([mechanism, *cells])

    data_rows = [
        [
            q,
            graphs[q].n_persons,
            graphs[q].n_pairs,
            graphs[q].n_items,
            int(graphs[q].degrees().max(initial=0)),
            ell_max[q],
            f"{UPPER[q]:.0e}",
        ]
        for q in queries
    ]
    r2t_notes = "\n".join(
        f"* {q}: base 2 — {_r2t_note(graphs[q], ell_max[q], 2)}; base 5.5 — "
        f"{_r2t_note(graphs[q], ell_max[q], 5.5)}"
        for q in queries
    )
    comparable = scale_factor == 1 and runs >= 50
    flagged = "\n".join(f"* {f}" for f in flags) or "* none"
    explanation = EXPLANATION
    if not comparable:
        flagged = "* (smoke run: too small and too few runs to compare with the paper)"
        explanation = ""
    return f"""# Knop & Steinke Table 2 on TPC-H (scale factor {scale_factor:g})

Trimmed mean of the relative error |estimate − DC(D)| / DC(D) over {runs} runs per mechanism
(the top and bottom {int(runs * TRIM)} dropped, the middle {runs - 2 * int(runs * TRIM)}
averaged), ε = {EPSILON:g}, β = {BETA:g}.  "± se": bootstrap standard error over the runs.
Generated by `python -m benchmarks.tpch_table2` on {machine()}.

{markdown_table(header, rows)}

Data (`dpcount.datasets.tpch(query, {scale_factor:g})`: suppliers / customers of nation 24, as in
the shifted-inverse paper's TPC-H queries):

{markdown_table(DATA_HEADER, data_rows)}

Parameters: DPDistinctCount and DPApproxDistinctCount choose ℓ among 1..ℓ_max with GEM (ε/2)
and release DC(D;ℓ̂) (exact matching, or the greedy Algorithm 2) with discrete Laplace noise
(ε/2); R2T uses thresholds base^j ≤ GS = ℓ_max with exact discrete Laplace noise; the shifted
inverse uses the LP inverse (parametric minimum cut) on a log10 grid with step 0.001.

## Wall time

Setup = data-dependent work done once (curve, inverse, GEM probabilities); release = one draw
given the setup; end-to-end = one call of the public function (`r2t`, `shifted_inverse`,
`dp_distinct_count`) from the graph.

{markdown_table(time_header, time_rows)}

## Differences from the published numbers beyond run-to-run noise

{flagged}

R2T without its noise would output max_j [DC(D;τ_j) − k·τ_j·ln(k/β)/ε]; its relative error
("predicted") is close to the measured one, so R2T's error is its shift at the best threshold:

{r2t_notes}

{explanation}"""


EXPLANATION = """\
Explanations of the differences.

* **R2T.** Table 2 does not state R2T's GS or base, and R2T's error is set by them (above).
  With what Knop & Steinke describe for R2T (thresholds 2, 4, …, 2^⌊log₂ ℓ_max⌋, i.e. GS = their
  ℓ_max) the supplier queries are expensive: 393 suppliers hold up to 80 (PS.AQ) or 622 (L.EP)
  items, DC(D;τ) approaches DC(D) only at τ ≈ 32 resp. 512–1024, and each shift is
  23·τ·ln(230)/ε ≈ 125·τ.  The R2T reference code's base 5.5 (fewer thresholds) is closer to the
  published supplier values.  No single setting reproduces all four published values: O.OD and
  L.RD are alike (≈ 2,400–2,500 dates, DC(D;2) = DC(D)), yet 0.0061 on O.OD (≈ 15 dates) needs
  k·τ₁·ln(k/β)/ε ≈ 15, i.e. one or two thresholds (GS below ≈ 30, less than O.OD's largest
  contribution 36), while 0.150 on L.RD (≈ 380 dates) needs k ≈ 33 thresholds of base 2 or
  k ≈ 15 of base 5.5.  The published R2T column was evidently produced with per-query settings
  we cannot recover.  In every setting R2T is the least accurate mechanism, as in the paper.
* **Shifted inverse.** Within 0.3 percentage points of the published values on all four
  queries, with a systematic residual of about one grid step: we round inverse values *down* to
  the grid (points 10^0.001, i.e. 0.23 % apart), so the best grid point never exceeds DC(D); the
  reference codes round *up* (docs/algorithms.md §5).  The error itself is DC(D) − f̌_τ of the LP
  inverse (τ = 23 or 22).  On PS.AQ and O.OD the LP envelope is the straight line from (0, 0) to
  (n persons, DC(D)), so LP_j = j·DC(D)/n and the error is τ/n: 23/393 = 5.9 % and
  22/3,984 = 0.55 % (+ up to a grid step).  On L.EP each supplier holds ≈ 530 prices that no
  other supplier of the nation holds, so LP_j ≈ 530·j, again ≈ 6 %; on L.RD a first segment
  (6 customers cover 6 dates alone) precedes the line, giving slightly more than O.OD.
* **DPDistinctCount / DPApproxDistinctCount.** The supplier queries agree within noise.  On the
  customer queries ours is about twice the published error because Knop & Steinke's public
  script subtracts only (ℓ̂/ε)·ln(1/(2β)) after adding Lap(2ℓ̂/ε) — half the shift of Algorithm 1
  line 14, so its lower bound fails with probability √(β/2) ≈ 0.22 instead of β = 0.1
  (algorithms.md §3); dpcount subtracts the full discrete shift (3 items at ℓ̂ = 1, against 1.6).
  There DC(D;1) = DC(D), so the shift is most of the error: ≈ 3.8 dates (ours) against ≈ 1.9
  (published) on O.OD.  The published 0.0001 on L.RD (0.25 dates) is below what any release
  with Laplace noise of scale 2ℓ̂/ε ≥ 2 reaches in this trimmed mean (the middle 60 % of |Lap(2)|
  alone average ≈ 1.5, i.e. 0.0006): a typo or a different setting.
* **Wall time.** DPDistinctCount's time on the supplier queries is GEM over ℓ_max = 10⁷ − 1
  candidates (the curve itself is flat beyond the largest degree and takes < 1 s to compute);
  its setup also computes GEM's exact probabilities for reuse.  The shifted inverse needs about
  two minimum cuts per vertex of the LP envelope on [0, 2τ] (one cut on PS.AQ and O.OD, ≈ 45
  on L.EP) and R2T one exact DC(D;ℓ) curve.
"""


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="SF 0.01, 10 runs, ℓ_max ≤ 1000")
    parser.add_argument("--runs", type=int, default=None, help="runs per mechanism (100)")
    parser.add_argument("--scale-factor", type=float, default=None, help="TPC-H SF (1)")
    parser.add_argument("--queries", nargs="*", default=list(QUERIES), choices=QUERIES)
    parser.add_argument("--seed", type=int, default=20231)
    parser.add_argument("--out", type=Path, default=None, help="output folder")
    args = parser.parse_args(argv)
    runs = args.runs or (10 if args.smoke else 100)
    scale_factor = args.scale_factor or (0.01 if args.smoke else 1.0)
    ell_max = {q: min(v, SMOKE_ELL_MAX) if args.smoke else v for q, v in ELL_MAX.items()}

    graphs, results = {}, {}
    for name in args.queries:
        graphs[name] = datasets.tpch(name, scale_factor)
        print(f"{name}: {graphs[name]}", flush=True)
        results[name] = run_query(name, graphs[name], runs, ell_max[name], args.seed)
    text = render(results, graphs, runs, scale_factor, ell_max, args.seed)
    path = write_result("tpch_table2.md", text, args.out)
    print(f"wrote {path}")
    return path


if __name__ == "__main__":
    main()
