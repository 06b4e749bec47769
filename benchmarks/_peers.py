"""The truncation baselines of other DP libraries, for the grouped benchmark.

Tumult Analytics (``count_distinct`` after ``MaxGroupsPerID(k)`` and
``MaxRowsPerGroupPerID(r)``) and OpenDP (Polars context: ``truncate_num_groups(k)``,
``truncate_per_group(r)``, ``n_unique``) release a grouped distinct count the same way: each
person keeps k of their groups and r of their rows in each kept group, the distinct items of
what is left are counted per group, and discrete Laplace noise of scale k·r/ε is added (under
pure DP both report this scale; each (k, r)-truncated person changes at most k counts by at most
r each).  This module runs that mechanism three ways:

* :func:`truncated_counts` – our own NumPy implementation (every person keeps k random groups
  and r random items in each), always available;
* :class:`OpenDPRunner` – OpenDP's Polars context, if ``opendp`` and ``polars`` are installed;
* :class:`TumultRunner` – Tumult Analytics, in its own interpreter (it pins older NumPy, pandas
  and PySpark than dpcount's), driven through :mod:`benchmarks._tumult_worker`.

Every runner returns the raw noisy counts and the noise scale it used; the benchmark turns them
into (1 − β) lower bounds by subtracting the noise's own (1 − β) quantile, as dpcount does.
None of these libraries is needed by dpcount or its tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

import numpy as np

from dpcount.graph import GroupedGraph
from mechanisms.noise import discrete_laplace

WORKER = Path(__file__).resolve().parent / "_tumult_worker.py"


@dataclass(frozen=True)
class PeerRelease:
    """Raw noisy counts per group (in group-label order), the noise scale and the seconds."""

    counts: np.ndarray
    scale: float
    seconds: float


class Peer(Protocol):
    """A truncation-and-Laplace grouped distinct count at one (k, r) setting."""

    name: str

    def release(self, k: int, r: int, epsilon: float, seed: int) -> PeerRelease: ...


def _rank_within(
    segment_starts: np.ndarray, sizes: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """A uniformly random rank 0.. of every element inside its segment (segments contiguous)."""
    n = int(sizes.sum())
    segment = np.repeat(np.arange(sizes.size), sizes)
    order = np.argsort(segment + rng.random(n), kind="stable")  # shuffles inside each segment
    ranks = np.empty(n, dtype=np.int64)
    ranks[order] = np.arange(n) - np.repeat(segment_starts, sizes)
    return ranks


def truncated_counts(graph: GroupedGraph, k: int, r: int, rng: np.random.Generator) -> np.ndarray:
    """Distinct items per group after each person keeps k random groups and r random items each.

    The truncation of Tumult's ``MaxGroupsPerID``/``MaxRowsPerGroupPerID`` and OpenDP's
    ``truncate_num_groups``/``truncate_per_group``, on distinct (person, group, item) rows.

    Examples
    --------
    >>> g = GroupedGraph.from_triples(["a"] * 4, ["x", "x", "y", "y"], [1, 2, 3, 4])
    >>> truncated_counts(g, 2, 1, np.random.default_rng(0)).tolist()
    [1, 1]
    >>> int(truncated_counts(g, 1, 2, np.random.default_rng(0)).sum())
    2
    """
    # Rows are (group, person); order them person by person to rank each person's groups.
    by_person = np.argsort(graph.row_persons, kind="stable")
    per_person = np.bincount(graph.row_persons, minlength=graph.n_persons)
    starts = np.concatenate(([0], np.cumsum(per_person)[:-1]))
    group_rank = np.empty(graph.n_rows, dtype=np.int64)
    group_rank[by_person] = _rank_within(starts, per_person, rng)
    sizes = np.diff(graph.indptr)
    item_rank = _rank_within(graph.indptr[:-1], sizes, rng)
    keep = (np.repeat(group_rank, sizes) < k) & (item_rank < r)
    groups = np.repeat(graph.row_groups(), sizes)[keep]
    items = graph.indices[keep].astype(np.int64)
    pairs = np.unique(groups * max(1, graph.n_items) + items)
    return np.bincount(pairs // max(1, graph.n_items), minlength=graph.n_groups)


class NumpyPeer:
    """The peers' mechanism in NumPy: :func:`truncated_counts` plus discrete Laplace(k·r/ε)."""

    name = "truncation + Laplace (ours)"

    def __init__(self, graph: GroupedGraph) -> None:
        self.graph = graph

    def release(self, k: int, r: int, epsilon: float, seed: int) -> PeerRelease:
        start = time.perf_counter()
        rng = np.random.default_rng(seed)
        scale = k * r / epsilon
        counts = truncated_counts(self.graph, k, r, rng)
        noise = discrete_laplace(scale, rng=rng, size=counts.size)
        return PeerRelease(counts + noise, scale, time.perf_counter() - start)


def opendp_available() -> bool:
    """Whether OpenDP's Polars context can be imported here."""
    try:
        import opendp.prelude  # noqa: F401
        import polars  # noqa: F401
    except ImportError:
        return False
    return True


class OpenDPRunner:
    """OpenDP's Polars context: truncate k groups and r rows per group, then ``n_unique``.

    ``truncate_num_groups(keep="sample")`` ranks a person's groups by a hash of the group key;
    in OpenDP 0.16 with Polars 1.36 it fails on a single grouping column ("multiple fields with
    name ..."), so the group codes are relabelled by a fresh random permutation per release and
    ``keep="first"`` keeps each person's groups of smallest label: the same rule.  Both keep
    ranks 1..k−1 of the dense rank (``rank < k``), i.e. **k − 1 groups**, while the noise is
    calibrated to k; this is OpenDP's behaviour and is kept.  The hash ranks the groups in one
    order for **every** person, so where persons belong to most groups (TPC-H supplier nations)
    the groups late in that order keep almost no one and OpenDP's counts there fall far short.
    The measurement of a (k, r) is built once (OpenDP searches its noise scale, ~5 s) and
    invoked once per release; its scale is k·r/ε (``summarize()`` reports the same;
    tests/benchmarks checks it).
    """

    name = "OpenDP"

    def __init__(self, graph: GroupedGraph) -> None:
        import polars as pl

        persons, groups, items = graph.triples()
        self._frame = pl.DataFrame({"person": persons, "grp": groups, "item": items}).lazy()
        self._n_groups = graph.n_groups
        self._measurements: dict[tuple[int, int, float], Any] = {}

    def query(self, k: int, r: int, epsilon: float) -> Any:
        """The OpenDP query (a ``LazyFrameQuery``) of one setting."""
        import opendp.prelude as dp
        import polars as pl

        dp.enable_features("contrib")
        context = dp.Context.compositor(
            data=self._frame,
            privacy_unit=dp.unit_of(contributions=1, identifier="person"),
            privacy_loss=dp.loss_of(epsilon=epsilon),
            split_evenly_over=1,
        )
        return (
            context.query()
            .truncate_num_groups(k, by=["grp"], keep="first")
            .truncate_per_group(r, by=["grp"])
            .group_by("grp")
            .agg(pl.col("item").n_unique().dp.noise())
            .with_keys(pl.LazyFrame({"grp": np.arange(self._n_groups)}))
        )

    def release(self, k: int, r: int, epsilon: float, seed: int) -> PeerRelease:
        import polars as pl

        if (k, r, epsilon) not in self._measurements:
            self._measurements[(k, r, epsilon)] = self.query(k, r, epsilon).resolve()
        measurement = self._measurements[(k, r, epsilon)]
        permutation = np.random.default_rng(seed).permutation(self._n_groups)
        frame = self._frame.with_columns(
            pl.col("grp").replace_strict(np.arange(self._n_groups), permutation)
        )
        start = time.perf_counter()
        out = measurement(frame).collect()
        seconds = time.perf_counter() - start
        counts = np.zeros(self._n_groups, dtype=np.int64)
        codes = np.argsort(permutation)[out["grp"].to_numpy()]  # back to the original codes
        counts[codes] = out["item"].to_numpy().astype(np.int64)
        return PeerRelease(counts, k * r / epsilon, seconds)


class TumultRunner:
    """Tumult Analytics in its own interpreter, one JSON line per release.

    ``python`` is an interpreter with ``tmlt.analytics`` installed (it pins NumPy < 2, pandas < 2
    and PySpark 3.5, so it cannot share dpcount's environment).  The worker loads the triples
    into Spark once; each release is a fresh Tumult ``Session`` with budget ε.
    """

    name = "Tumult Analytics"

    def __init__(self, graph: GroupedGraph, python: str, folder: Path) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        persons, groups, items = graph.triples()
        path = folder / "triples.parquet"
        pq.write_table(pa.table({"person": persons, "grp": groups, "item": items}), path)
        env = dict(os.environ, PYSPARK_PYTHON=python, PYSPARK_DRIVER_PYTHON=python)
        self._process = subprocess.Popen(
            [python, str(WORKER), str(path), str(graph.n_groups)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=folder,  # Spark writes its warehouse folder here, not into the checkout
        )
        self._n_groups = graph.n_groups
        self._ask({"ping": True})  # waits for Spark to start and the data to load

    def _ask(self, message: dict[str, Any]) -> dict[str, Any]:
        stdin: IO[str] | None = self._process.stdin
        stdout: IO[str] | None = self._process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            raise RuntimeError("the Tumult worker stopped (run it by hand to see why)")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def release(self, k: int, r: int, epsilon: float, seed: int) -> PeerRelease:
        answer = self._ask({"k": k, "r": r, "epsilon": epsilon})
        counts = np.zeros(self._n_groups, dtype=np.int64)
        for code, value in answer["counts"]:
            counts[int(code)] = int(value)
        return PeerRelease(counts, float(answer["scale"]), float(answer["seconds"]))

    def close(self) -> None:
        """Stop the worker."""
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(timeout=120)


def tumult_python(explicit: str | None) -> str | None:
    """The interpreter with Tumult Analytics: ``explicit``, this one, or None if there is none."""
    candidates = [explicit] if explicit else [sys.executable]
    for python in candidates:
        probe = subprocess.run(
            [python, "-c", "import tmlt.analytics"], capture_output=True, check=False
        )
        if probe.returncode == 0:
            return python
    return None
