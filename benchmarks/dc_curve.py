"""How fast is the whole curve DC(D;ℓ), ℓ = 1..100, on Reddit-sized data?

Every method of :func:`matching.dc_curve` is timed on the synthetic Reddit-like graph
(:func:`dpcount.datasets.reddit_like`) at several scales, as a multiple of the time to read the
pairs once.  *Reading the pairs once* is defined as one linear pass over the item column that
counts the distinct items, ``np.count_nonzero(np.bincount(indices, minlength=n_items))`` — the
non-private distinct count, the least any method has to do.

Besides the methods' curves (which stop early once the curve is flat), the script times the
reference approach of Knop & Steinke's public code: one cold max-flow per ℓ for all ℓ_max values
of ℓ (here with SciPy's Dinic).  Slow methods run only at small scales; their full-scale time is
extrapolated from the growth between the two largest scales they ran at, and says so.

The figure is the analogue of Knop & Steinke's Figure 1: DC(D;ℓ) against ℓ for the matching
(exact), greedy and sampling counts, with the true distinct count DC(D).

Run ``python -m benchmarks.dc_curve`` (``--smoke`` for a tiny run, ``--out DIR``).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import matching
from benchmarks._common import RESULTS, best_time, machine, markdown_table, write_result
from dpcount import PersonItemGraph
from dpcount.datasets import reddit_like
from matching.flow import flow_value

SEED = 0
SAMPLING_SEED = 1


@dataclass(frozen=True)
class Config:
    """Sizes of one run: scales for the fast methods and for each slow one."""

    ell_max: int
    fast_scales: tuple[float, ...]
    slow_scales: dict[str, tuple[float, ...]]
    repeat: int
    figure_scales: tuple[float, ...]


FULL = Config(
    ell_max=100,
    fast_scales=(0.01, 0.1, 1.0),
    slow_scales={
        "flow per ℓ (reference)": (0.01, 0.1, 1.0),
        "igraph": (0.001, 0.01),
        "hopcroft_karp": (0.001, 0.01),
        "networkx": (0.0003, 0.001),
    },
    repeat=5,
    figure_scales=(0.01, 0.1, 1.0),
)
SMOKE = Config(
    ell_max=20,
    fast_scales=(0.0005, 0.002),
    slow_scales={
        "flow per ℓ (reference)": (0.0005, 0.002),
        "igraph": (0.0005, 0.002),
        "hopcroft_karp": (0.0005, 0.002),
        "networkx": (0.00005, 0.0001),
    },
    repeat=1,
    figure_scales=(0.0005, 0.002),
)

FAST_METHODS = ("incremental", "greedy", "sampling", "flow")
EXACT = ("incremental", "flow", "flow per ℓ (reference)", "igraph", "hopcroft_karp", "networkx")


@dataclass
class Timing:
    """One measured (method, scale) cell."""

    method: str
    scale: float
    seconds: float
    ratio: float  # seconds / read-pass seconds at that scale
    curve: np.ndarray = field(repr=False)


def read_pass(graph: PersonItemGraph) -> int:
    """Read the pairs once: the distinct item count from one bincount over the item column."""
    return int(np.count_nonzero(np.bincount(graph.indices, minlength=graph.n_items)))


def reference_curve(graph: PersonItemGraph, ell_max: int) -> np.ndarray:
    """Knop & Steinke's reference approach: one cold Dinic solve for every ℓ = 1..ℓ_max."""
    return np.array([flow_value(graph, ell) for ell in range(1, ell_max + 1)], dtype=np.int64)


def method_runner(method: str, ell_max: int) -> Callable[[PersonItemGraph], np.ndarray]:
    """The curve computation timed for ``method``."""
    if method == "flow per ℓ (reference)":
        return lambda g: reference_curve(g, ell_max)
    return lambda g: matching.dc_curve(g, ell_max, method=method, rng=SAMPLING_SEED)


def warm_up() -> None:
    """Compile the numba kernels and import the optional libraries before any timing.

    Graphs below 50,000 pairs run the kernels interpreted (no compilation), so the compiled
    methods are warmed on one just above that.
    """
    tiny = PersonItemGraph.from_sets({"a": {1, 2}, "b": {2, 3}})
    for method in matching.METHODS:
        matching.dc_curve(tiny, 3, method=method, rng=0)
    above_threshold = reddit_like(0.01, SEED)  # ~69,000 pairs
    for method in ("incremental", "greedy", "sampling"):
        matching.dc_curve(above_threshold, 3, method=method, rng=0)


def measure(config: Config, log: Callable[[str], None]) -> tuple[list[Timing], dict[float, Any]]:
    """Time every method at its scales; return the timings and per-scale graph facts."""
    warm_up()
    plan: dict[float, list[str]] = {}
    for scale in config.fast_scales:
        plan.setdefault(scale, []).extend(FAST_METHODS)
    for method, scales in config.slow_scales.items():
        for scale in scales:
            plan.setdefault(scale, []).append(method)
    timings: list[Timing] = []
    facts: dict[float, Any] = {}
    for scale in sorted(plan):
        graph = reddit_like(scale, SEED)
        base, distinct = best_time(lambda g=graph: read_pass(g), repeat=max(5, config.repeat))
        facts[scale] = {"graph": graph, "read_pass": base, "distinct": distinct}
        log(f"scale {scale:g}: {graph!r}, read pass {base * 1e3:.2f} ms")
        for method in plan[scale]:
            slow = method not in FAST_METHODS
            repeat = 1 if slow else config.repeat
            seconds, curve = best_time(
                lambda g=graph, m=method: method_runner(m, config.ell_max)(g), repeat
            )
            timings.append(Timing(method, scale, seconds, seconds / base, np.asarray(curve)))
            log(f"  {method:<24} {seconds:9.4f} s  ({seconds / base:,.0f}× read pass)")
    return timings, facts


def check_exact_agree(timings: Sequence[Timing]) -> None:
    """Every exact method must give the same curve at the same scale."""
    by_scale: dict[float, np.ndarray] = {}
    for t in timings:
        if t.method not in EXACT:
            continue
        if t.scale in by_scale and not np.array_equal(by_scale[t.scale], t.curve):
            raise AssertionError(f"{t.method} disagrees with another exact method at {t.scale}")
        by_scale.setdefault(t.scale, t.curve)


def growth(timings: Sequence[Timing], method: str) -> tuple[float, float, float] | None:
    """(exponent, largest measured scale, its seconds) of time ∝ scale^exponent for ``method``."""
    points = sorted((t.scale, t.seconds) for t in timings if t.method == method)
    if len(points) < 2:
        return None
    (s0, t0), (s1, t1) = points[-2], points[-1]
    return math.log(t1 / t0) / math.log(s1 / s0), s1, t1


def report(config: Config, timings: Sequence[Timing], facts: dict[float, Any]) -> str:
    """The Markdown page: setup, one table per scale, growth and the headline speed-ups."""
    methods = [*FAST_METHODS, *config.slow_scales]
    lines = [
        f"# The whole DC(D;ℓ) curve, ℓ = 1..{config.ell_max}, on Reddit-like data",
        "",
        f"Machine: {machine()}. Data: `dpcount.datasets.reddit_like(scale, seed={SEED})`. "
        f"Times are the best of {config.repeat} runs for the fast methods, one run for the "
        "slow ones (numba kernels compiled beforehand).",
        "",
        "*Read pass* = one linear pass over the pairs that counts the distinct items "
        "(`np.count_nonzero(np.bincount(indices, minlength=n_items))`); every time is also "
        "given as a multiple of it.  Curves of the methods stop once they are flat and at "
        "ℓ = max degree (docs/algorithms.md §1); *flow per ℓ (reference)* solves all ℓ_max values "
        "cold, as Knop & Steinke's public code does.",
        "",
    ]
    header = ["scale", "persons", "pairs", "items", "DC(D;1)", "DC(D;ℓ_max)", "read pass (ms)"]
    rows = []
    for scale, f in sorted(facts.items()):
        g = f["graph"]
        exact = next((t.curve for t in timings if t.scale == scale and t.method in EXACT), None)
        rows.append(
            [
                f"{scale:g}",
                g.n_persons,
                g.n_pairs,
                g.n_items,
                int(exact[0]) if exact is not None else "–",
                int(exact[-1]) if exact is not None else "–",
                f["read_pass"] * 1e3,
            ]
        )
    lines += [markdown_table(header, rows), ""]
    flat = [row[0] for row in rows if row[4] != "–" and row[4] == row[5]]
    if flat:
        lines += [
            f"At scale {', '.join(flat)} the exact curve is flat from ℓ = 1 (DC(D;1) = DC(D)): "
            "there the exact methods compute one maximum matching and check that ℓ = 2 adds "
            "nothing, while the reference still solves every ℓ.  The smaller scales show the "
            "cost of a curve that keeps rising.",
            "",
        ]
    scales = sorted(facts)
    cells = {(t.method, t.scale): t for t in timings}
    header = ["method", *[f"scale {s:g}: seconds (× read pass)" for s in scales]]
    rows = []
    for method in methods:
        row: list[Any] = [method]
        for scale in scales:
            t = cells.get((method, scale))
            row.append(f"{t.seconds:.4g} ({t.ratio:,.0f}×)" if t else "–")
        rows.append(row)
    lines += ["## Time of the whole curve", "", markdown_table(header, rows), ""]
    full = max(config.fast_scales)
    lines += [f"## Growth and extrapolation to scale {full:g}", ""]
    grow_rows = []
    for method in methods:
        g = growth(timings, method)
        if g is None:
            continue
        exponent, last, seconds = g
        at_full = cells.get((method, full))
        if at_full is not None:
            full_text = f"{at_full.seconds:.4g} s measured"
        else:
            full_text = f"≈ {seconds * (full / last) ** exponent:.3g} s **extrapolated**"
        grow_rows.append([method, f"{exponent:.2f}", full_text])
    lines += [
        "Growth exponent b of time ∝ scale^b between the two largest scales a method ran at.",
        "",
        markdown_table(["method", "b", f"time at scale {full:g}"], grow_rows),
        "",
    ]
    inc, ref, greedy = (
        cells.get((m, full)) for m in ("incremental", "flow per ℓ (reference)", "greedy")
    )
    if inc and ref and greedy:
        lines += [
            f"## Headline (scale {full:g})",
            "",
            f"* exact curve (`incremental`): {inc.seconds:.3g} s — "
            f"{ref.seconds / inc.seconds:,.0f}× faster than per-ℓ Dinic ({ref.seconds:.3g} s) "
            "in the same run;",
            f"* greedy curve: {greedy.seconds * 1e3:.3g} ms;",
            f"* read pass: {facts[full]['read_pass'] * 1e3:.3g} ms.",
            "",
        ]
    lines += [
        "All exact methods returned identical curves at every scale they ran at "
        "(checked by the script).",
        "",
    ]
    return "\n".join(lines)


def figure(config: Config, timings: Sequence[Timing], facts: dict[float, Any], path: Path) -> None:
    """DC(D;ℓ) against ℓ for matching, greedy and sampling (Knop & Steinke Figure 1 analogue)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scales = [s for s in config.figure_scales if s in facts]
    fig, axes = plt.subplots(1, len(scales), figsize=(4.2 * len(scales), 3.4), squeeze=False)
    ell = np.arange(1, config.ell_max + 1)
    cells = {(t.method, t.scale): t.curve for t in timings}
    styles = {
        "incremental": ("matching (exact)", "-"),
        "greedy": ("greedy (Alg. 2)", "--"),
        "sampling": ("sampling", ":"),
    }
    for ax, scale in zip(axes[0], scales, strict=True):
        ax.axhline(facts[scale]["distinct"], color="grey", lw=0.8, label="true DC(D)")
        for method, (label, style) in styles.items():
            if (method, scale) in cells:
                ax.plot(ell, cells[(method, scale)], style, label=label)
        g = facts[scale]["graph"]
        ax.set_title(f"Reddit-like, scale {scale:g}\n{g.n_persons:,} persons, {g.n_pairs:,} pairs")
        ax.set_xlabel("person contribution bound ℓ")
    axes[0][0].set_ylabel("distinct count")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; write ``dc_curve.md`` and ``dc_curve.png`` to ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, runs in seconds")
    parser.add_argument("--out", type=Path, default=RESULTS, help="output directory")
    parser.add_argument("--quiet", action="store_true", help="no progress output")
    args = parser.parse_args(argv)
    config = SMOKE if args.smoke else FULL
    log = (lambda _msg: None) if args.quiet else (lambda msg: print(msg, flush=True))
    start = time.perf_counter()
    timings, facts = measure(config, log)
    check_exact_agree(timings)
    text = report(config, timings, facts)
    text += f"\nTotal benchmark wall time: {time.perf_counter() - start:.0f} s.\n"
    write_result("dc_curve.md", text, args.out)
    figure(config, timings, facts, args.out / "dc_curve.png")
    log(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
