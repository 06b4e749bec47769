"""KL divergence against ε: Bayesian n-gram DP versus the Laplace baselines (Ramadan et al. Fig. 1).

Generated corpora share a Zipf vocabulary.  The public corpus samples the Zipf law directly; the
private one samples a mixture (1 − m)·Zipf + m·(Zipf with shuffled ranks), so ``m`` (the
*mismatch*) moves from identical to unrelated frequency ranks.  Each person draws
1 + Poisson(L − 1) tokens, 70% from the private law and 30% from five personal favourites
(people repeat themselves, which is what the clamp C is for); 5% of the private mass sits on
n-grams outside the public vocabulary (dropped by every mechanism).

For every (m, ε) and repetition the script releases

* Bayesian DP (Algorithm 1) at fixed (S, ρ), brute-force sensitivity;
* EndToEnd DP (Algorithm 2): ε/3 for the noisy-min, 2ε/3 for the release, 10% of persons for
  tuning, over the paper's grid (S ∈ 10^{-3..4}, one per decade, × ρ ∈ {0.1, …, 0.9}) and over a
  narrow grid S ∈ {10⁻³, 3·10⁻³, 10⁻²} × the same ρ, chosen on a pilot corpus;
* the two Laplace baselines of §4.2 with the paper's per-person cap W = max(1, |U|/1000);
* the public distribution alone (no privacy cost) as a reference,

and reports KL(p ‖ θ) from the true private distribution p over the public vocabulary.  The
Laplace outputs have zeros (KL = ∞), so every θ is mixed with the uniform distribution at
weight 10⁻³ before the KL is taken (the paper does not say how it handled zeros).

Run ``python -m benchmarks.bayesian_ngrams`` (``--smoke`` for a tiny run, ``--out DIR``).
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._common import RESULTS, machine, markdown_table, write_result
from dpcount import PersonItemGraph
from dpcount.errors import PrivacyLeakWarning
from mechanisms.bayesian_ngrams import (
    bayesian_dp,
    end_to_end_dp,
    kl_divergence,
    laplace_ngrams,
    laplace_ngrams_public,
)

SMOOTHING = 1e-3  # weight of the uniform distribution mixed into every θ before the KL
# Algorithm 1 at one fixed point, chosen on a pilot corpus (m = 0.25, seed 0); C = 1 (§4.3).
FIXED_S, FIXED_RHO, C = 1e-3, 0.5, 1
NARROW_S, NARROW_RHO = (1e-3, 3e-3, 1e-2), (0.1, 0.3, 0.5, 0.7, 0.9)
DELTA = 1e-6
MECHANISMS = (
    "Bayesian DP",
    "EndToEnd, paper grid",
    "EndToEnd, narrow grid",
    "Laplace",
    "Laplace + public",
    "public only",
)


@dataclass(frozen=True)
class Corpus:
    """A generated private graph, the public counts and the true private distribution."""

    graph: PersonItemGraph
    public: tuple[np.ndarray, np.ndarray]
    truth: np.ndarray


def zipf(size: int, exponent: float = 1.1) -> np.ndarray:
    """Zipf probabilities ∝ rank^(−exponent)."""
    weights = np.arange(1, size + 1, dtype=float) ** -exponent
    return weights / weights.sum()


def generate_corpus(
    n_persons: int,
    vocab_size: int,
    mismatch: float,
    seed: int,
    tokens_per_person: int = 40,
    public_tokens: int | None = None,
) -> Corpus:
    """Public counts and per-person private counts with a shared Zipf vocabulary."""
    rng = np.random.default_rng(seed)
    base = zipf(vocab_size)
    private = (1 - mismatch) * base + mismatch * base[rng.permutation(vocab_size)]
    n_oov = max(1, vocab_size // 20)
    private = np.concatenate([0.95 * private, 0.05 * zipf(n_oov)])
    labels = np.array(
        [f"w{j:05d}" for j in range(vocab_size)] + [f"x{j:05d}" for j in range(n_oov)]
    )

    public_counts = rng.multinomial(public_tokens or 100 * vocab_size, base)
    seen = public_counts > 0  # the public vocabulary: n-grams the public corpus contains
    public = (labels[:vocab_size][seen], public_counts[seen])

    lengths = 1 + rng.poisson(tokens_per_person - 1, n_persons)
    person = np.repeat(np.arange(n_persons), lengths)
    tokens = rng.choice(private.size, size=person.size, p=private)
    favourites = rng.choice(private.size, size=(n_persons, 5), p=private)
    personal = rng.random(person.size) < 0.3
    tokens[personal] = favourites[person[personal], rng.integers(0, 5, personal.sum())]
    keys, counts = np.unique(person * private.size + tokens, return_counts=True)
    graph = PersonItemGraph.from_pairs(
        keys // private.size, labels[keys % private.size], counts=counts
    )
    in_vocab = np.zeros(private.size, dtype=bool)
    in_vocab[np.flatnonzero(seen)] = True
    truth = np.bincount(tokens, minlength=private.size)[in_vocab].astype(float)
    return Corpus(graph, public, truth / truth.sum())


def smoothed(theta: np.ndarray) -> np.ndarray:
    return (1 - SMOOTHING) * theta + SMOOTHING / theta.size


def releases(
    corpus: Corpus, epsilon: float, rng: np.random.Generator
) -> dict[str, Callable[[], Any]]:
    """One zero-argument call per mechanism at this ε (each draws from ``rng``)."""
    g, public = corpus.graph, corpus.public
    cap = max(1, g.n_persons // 1000)
    return {
        "Bayesian DP": lambda: bayesian_dp(
            g,
            public,
            epsilon,
            DELTA,
            clip_slope=FIXED_S,
            max_count=C,
            private_weight=FIXED_RHO,
            rng=rng,
        ),
        "EndToEnd, paper grid": lambda: end_to_end_dp(
            g, public, epsilon / 3, 2 * epsilon / 3, DELTA, max_count=C, rng=rng
        ),
        "EndToEnd, narrow grid": lambda: end_to_end_dp(
            g,
            public,
            epsilon / 3,
            2 * epsilon / 3,
            DELTA,
            max_count=C,
            clip_slopes=NARROW_S,
            private_weights=NARROW_RHO,
            rng=rng,
        ),
        "Laplace": lambda: laplace_ngrams(g, public, epsilon, max_contribution=cap, rng=rng),
        "Laplace + public": lambda: laplace_ngrams_public(
            g, public, epsilon, max_contribution=cap, rng=rng
        ),
    }


def run(
    n_persons: int,
    vocab_size: int,
    mismatches: Sequence[float],
    epsilons: Sequence[float],
    repetitions: int,
    seed: int = 0,
) -> tuple[list[list[Any]], dict[str, float], dict[float, dict[str, list[float]]]]:
    """Mean KL per (mismatch, ε, mechanism), mean run time per mechanism, and the curves."""
    rng = np.random.default_rng(seed)
    rows: list[list[Any]] = []
    times: dict[str, list[float]] = {name: [] for name in MECHANISMS[:-1]}
    curves: dict[float, dict[str, list[float]]] = {}
    for m_index, mismatch in enumerate(mismatches):
        corpora = [
            generate_corpus(n_persons, vocab_size, mismatch, seed=1000 * m_index + rep + seed)
            for rep in range(repetitions)
        ]
        public_kl = float(
            np.mean(
                [kl_divergence(c.truth, smoothed(c.public[1] / c.public[1].sum())) for c in corpora]
            )
        )
        curves[mismatch] = {name: [] for name in MECHANISMS}
        for epsilon in epsilons:
            kls: dict[str, list[float]] = {name: [] for name in MECHANISMS[:-1]}
            for corpus in corpora:
                for name, call in releases(corpus, epsilon, rng).items():
                    start = time.perf_counter()
                    result = call()
                    times[name].append(time.perf_counter() - start)
                    kls[name].append(kl_divergence(corpus.truth, smoothed(result.probabilities)))
            means = [float(np.mean(kls[name])) for name in MECHANISMS[:-1]]
            rows.append([mismatch, epsilon, *means, public_kl])
            for name, value in zip(MECHANISMS, [*means, public_kl], strict=True):
                curves[mismatch][name].append(value)
    return rows, {name: float(np.mean(t)) for name, t in times.items()}, curves


def plot(
    curves: dict[float, dict[str, list[float]]], epsilons: Sequence[float], path: Path
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(curves), figsize=(4.2 * len(curves), 3.6), sharey=True)
    axes = np.atleast_1d(axes)
    for ax, (mismatch, series) in zip(axes, curves.items(), strict=True):
        for name, values in series.items():
            style = "--" if name == "public only" else "-o"
            ax.plot(epsilons, values, style, label=name, markersize=4)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("ε")
        ax.set_title(f"public/private mismatch m = {mismatch:g}")
    axes[0].set_ylabel("KL(private ‖ released)")
    axes[-1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes (for CI)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="output directory")
    parser.add_argument("--persons", type=int, default=3000)
    parser.add_argument("--vocab", type=int, default=3000)
    parser.add_argument("--repetitions", type=int, default=5)
    args = parser.parse_args(argv)
    mismatches: tuple[float, ...] = (0.0, 0.25, 0.75)
    epsilons: tuple[float, ...] = (0.05, 0.1, 0.2, 0.5, 0.9)
    n, vocab, reps = args.persons, args.vocab, args.repetitions
    if args.smoke:
        n, vocab, reps = 60, 80, 1
        mismatches, epsilons = (0.0, 0.5), (0.1, 0.5)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # stated in the report below
        rows, times, curves = run(n, vocab, mismatches, epsilons, reps)

    header = ["mismatch m", "ε", *(f"KL {name}" for name in MECHANISMS)]
    time_rows = [[name, seconds * 1000] for name, seconds in times.items()]
    text = "\n\n".join(
        [
            "# Bayesian n-gram DP: KL divergence from the private distribution against ε",
            f"Machine: {machine()}.  {n:,} persons, public vocabulary ≈ {vocab:,} Zipf(1.1) "
            f"n-grams, ≈40 tokens per person, {reps} corpus/corpora per mismatch, one release per "
            f"corpus and ε.  δ = {DELTA:g}, C = {C}; Bayesian DP at S = {FIXED_S:g}, "
            f"ρ = {FIXED_RHO:g} (chosen on a pilot corpus); EndToEnd DP with ε/3 tuning, 2ε/3 "
            "release, 10% tuning persons, paper grid S ∈ 10^{-3..4} (8 values) or narrow grid "
            "S ∈ {1e-3, 3e-3, 1e-2}, × ρ ∈ {0.1, 0.3, 0.5, 0.7, 0.9}; Laplace cap "
            f"W = {max(1, n // 1000)}.  KL(p ‖ θ) after mixing θ with 10⁻³ uniform.",
            "**Guarantees differ**: *Laplace* and *Laplace + public* (the plain baseline at "
            "twice the noise scale) are worst-case ε-DP.  Both Bayesian rows calibrate noise to "
            "data-dependent (local) sensitivities: their ε is nominal (docs/algorithms.md §7).",
            markdown_table(header, rows),
            "## Mean run time per release",
            markdown_table(["mechanism", "milliseconds"], time_rows),
            "Generated by `python -m benchmarks.bayesian_ngrams"
            + (" --smoke" if args.smoke else "")
            + "`.",
        ]
    )
    path = write_result("bayesian_ngrams.md", text + "\n", args.out)
    plot(curves, epsilons, args.out / "bayesian_ngrams.png")
    print(text)
    print(f"\nwrote {path} and {args.out / 'bayesian_ngrams.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
