"""Spark local[2] against the local path: weighted Gaussian set union and the sampling count.

Generates reddit-like pairs (7.1M at scale 1, 71M at scale 10) as Parquet, then times, in one
run, the whole job from the file on each engine: the local path reads with
:func:`dpcount.io.read_pairs` and runs the numba kernels; Spark (``local[2]``) runs
:func:`mechanisms.spark.set_union` / :func:`mechanisms.spark.distinct_count` from the same file.
Both engines are timed warm: the local path after one untimed call (compiling its kernels),
Spark after three at 7.1M (code generation, then the JVM's JIT compiling the hot paths) and
one at 71M; the median of 3 calls at 7.1M, of 2 at 71M.  Spark's first call of each job in the
session is reported beside it.  Reports seconds, the
Spark/local ratio, the growth exponent between the two sizes and the driver's peak RSS (the
Spark JVM's memory is not included).

Targets: ratio ≤ 10 at 7.1M pairs, growth exponent ≤ 1.1 from 7.1M to 71M.

Usage: ``python -m benchmarks.spark [--smoke] [--out DIR] [--data-dir DIR]``.

``--noise-only`` times, at the first size only, the weighted Laplace and Gaussian set unions
with exact and with floating-point noise on both engines (``spark_noise.md``).
"""

from __future__ import annotations

import argparse
import math
import resource
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from benchmarks._common import machine, markdown_table, write_result
from dpcount.datasets import reddit_like

EPSILON, DELTA, MAX_ITEMS, ELL_MAX = 1.0, 1e-6, 100, 100


def write_parquet(scale: float, path: Path) -> int:
    """Reddit-like pairs at ``scale`` as a Parquet file of int64 (person, item); pair count."""
    graph = reddit_like(scale_factor=scale, seed=0)
    persons, items = graph.pairs()
    table = pa.table(
        {
            "person": np.asarray(graph.person_labels)[persons].astype(np.int64),
            "item": np.asarray(graph.item_labels)[items].astype(np.int64),
        }
    )
    pq.write_table(table, path, row_group_size=1 << 20)
    return int(graph.n_pairs)


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def median_seconds(fn: Callable[[], Any], repeats: int) -> float:
    """Median wall time of ``repeats`` calls of ``fn``."""
    return float(np.median([timed(fn) for _ in range(repeats)]))


def local_jobs(path: Path, repeats: int) -> dict[str, float]:
    """Median seconds of each local job, each from the file (read + release), kernels warm."""
    from dpcount.io import read_pairs
    from mechanisms import dp_distinct_count
    from mechanisms.set_union import weighted_gaussian

    def union() -> None:
        weighted_gaussian(read_pairs(str(path)), EPSILON, DELTA, max_items=MAX_ITEMS, rng=1)

    def count() -> None:
        dp_distinct_count(read_pairs(str(path)), EPSILON, ell_max=ELL_MAX, counting="sampling")

    union(), count()  # compile (or load) the kernels outside the timing
    return {"union": median_seconds(union, repeats), "count": median_seconds(count, repeats)}


def spark_jobs(path: Path, warmups: int, repeats: int) -> tuple[dict[str, float], dict[str, float]]:
    """(first-call seconds, median warm seconds) of each Spark job, each from the file.

    The first ``warmups`` calls of a job are not in the median: the first pays for Spark's
    code generation and the JVM compiles the hot paths over the next few (the local path's
    warm-up pays for compiling its kernels).  The first call is reported on its own.
    """
    from dpcount.spark import SparkPairs
    from mechanisms.set_union import weighted_gaussian
    from mechanisms.spark import distinct_count

    def union() -> None:  # the local reference's mechanism, given the Spark pairs
        pairs = SparkPairs(str(path), person="person", item="item")
        weighted_gaussian(pairs, EPSILON, DELTA, max_items=MAX_ITEMS)

    def count() -> None:
        distinct_count(str(path), "person", "item", EPSILON, ell_max=ELL_MAX, counting="sampling")

    first = {"union": timed(union), "count": timed(count)}
    for _ in range(warmups - 1):
        union(), count()
    return first, {"union": median_seconds(union, repeats), "count": median_seconds(count, repeats)}


NOISE_MECHANISMS = ("weighted_laplace", "weighted_gaussian")


def noise_rows(path: Path, warmups: int, repeats: int) -> list[list[object]]:
    """Per mechanism and engine: released items and median seconds with exact and with float
    noise (same seed, so the items differ only by the noise form), and the time ratio."""
    from dpcount.io import read_pairs
    from mechanisms import set_union as local
    from mechanisms.spark import set_union

    rows: list[list[object]] = []
    for name in NOISE_MECHANISMS:
        for engine in ("local", "spark"):
            seconds, items = {}, {}
            for mode in ("exact", "float"):

                def job(mode: str = mode, name: str = name, engine: str = engine) -> int:
                    if engine == "local":
                        fn = getattr(local, name)
                        graph = read_pairs(str(path))
                        return fn(
                            graph, EPSILON, DELTA, max_items=MAX_ITEMS, rng=1, noise=mode
                        ).count
                    return set_union(
                        str(path),
                        "person",
                        "item",
                        epsilon=EPSILON,
                        delta=DELTA,
                        max_items=MAX_ITEMS,
                        algorithm=name,
                        rng=1,
                        noise=mode,
                    ).count

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for _ in range(warmups):
                        items[mode] = job()
                    seconds[mode] = median_seconds(job, repeats)
            ratio = seconds["exact"] / seconds["float"]
            rows.append(
                [
                    name,
                    engine,
                    items["exact"],
                    items["float"],
                    seconds["exact"],
                    seconds["float"],
                    ratio,
                ]
            )
            print(rows[-1], flush=True)
    return rows


def start_spark(master: str) -> tuple[Any, bool]:
    """The session (created here unless one is active) and whether this call created it.

    A session dpcount creates (:func:`dpcount.spark.dpcount_session`), so that its workers run
    this interpreter whatever ``python3`` is on PATH, with the benchmark's own settings.
    """
    from pyspark.sql import SparkSession

    from dpcount.spark import dpcount_session

    created = SparkSession.getActiveSession() is None

    warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas", FutureWarning)
    spark = dpcount_session(
        master,
        conf={
            "spark.driver.memory": "6g",
            "spark.sql.shuffle.partitions": "8",
            "spark.ui.enabled": "false",
        },
        app_name="dpcount-benchmark",
    )
    spark.sparkContext.setLogLevel("ERROR")
    spark.range(10).count()  # JVM start-up outside the timings
    return spark, created


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, for the smoke test")
    parser.add_argument("--out", type=Path, default=None, help="results directory")
    parser.add_argument("--data-dir", type=Path, default=None, help="where to write Parquet")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--noise-only", action="store_true", help="exact vs float noise only")
    args = parser.parse_args(argv)
    scales = (0.002, 0.02) if args.smoke else (1.0, 10.0)
    spark, created = start_spark(args.master)
    if args.noise_only:
        with tempfile.TemporaryDirectory(dir=args.data_dir) as tmp:
            path = Path(tmp) / "reddit_like.parquet"
            n_pairs = write_parquet(scales[0], path)
            rows = noise_rows(path, 2, 3)
        if created:
            spark.stop()
        text = "\n".join(
            [
                "# Set union on both engines: exact versus floating-point noise",
                "",
                f"Machine: {machine()}; Spark master {args.master}.  {n_pairs:,} reddit-like "
                f"pairs from Parquet (read included), ε = {EPSILON:g}, δ = {DELTA:g}, "
                f"Δ0 = {MAX_ITEMS}; seed 1 for every call (so the two forms keep the same "
                "subsets); median of 3 warm calls.  The machine is shared, so seconds are noisy.",
                "",
                markdown_table(
                    [
                        "mechanism",
                        "engine",
                        "items exact",
                        "items float",
                        "exact s",
                        "float s",
                        "exact/float",
                    ],
                    rows,
                ),
                "",
            ]
        )
        print(text)
        write_result("spark_noise.md", text, args.out)
        return 0
    rows, sizes, spark_times = [], [], []
    with tempfile.TemporaryDirectory(dir=args.data_dir) as tmp:
        # The JVM is warm after the small size: fewer calls of the (slow) large one, but two,
        # since single calls at 71M varied by a quarter (46-58 s for the same job).
        for scale, warmups, repeats in zip(scales, (3, 1), (3, 2), strict=True):
            path = Path(tmp) / f"reddit_like_{scale:g}.parquet"
            n_pairs = write_parquet(scale, path)
            local = local_jobs(path, repeats)
            first, distributed = spark_jobs(path, warmups, repeats)
            sizes.append(n_pairs)
            spark_times.append(distributed)
            for job in ("union", "count"):
                ratio = distributed[job] / local[job]
                row = [f"{n_pairs:,}", job, repeats, local[job], distributed[job], ratio]
                rows.append([*row, first[job], first[job] / local[job]])
            print(rows[-2], rows[-1], flush=True)
    if created:
        spark.stop()
    growth = {
        job: math.log(spark_times[1][job] / spark_times[0][job]) / math.log(sizes[1] / sizes[0])
        for job in ("union", "count")
    }
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    text = "\n".join(
        [
            "# Spark engine vs local path",
            "",
            f"Machine: {machine()}; Spark master {args.master}, driver memory 6g.  The machine is "
            "shared with other jobs, so absolute seconds are noisy; ratios are from one run.",
            "",
            "union = weighted Gaussian set union (Δ0 = 100); count = distinct count with "
            "counting='sampling' (ℓ_max = 100).  Both from the Parquet file (read included).  "
            "Both engines warm (the local kernels compiled after one call; Spark after three "
            "calls of the same job at the first size, one at the second): the median of `runs` "
            "calls.  The last two columns are Spark's first call of the job in the session "
            "(code generation and a cold JVM JIT included) and its ratio.",
            "",
            markdown_table(
                [
                    "pairs",
                    "job",
                    "runs",
                    "local s",
                    "spark s",
                    "spark/local",
                    "spark first call s",
                    "first/local",
                ],
                rows,
            ),
            "",
            f"Growth exponent of Spark time from {sizes[0]:,} to {sizes[1]:,} pairs: "
            f"union {growth['union']:.3f}, count {growth['count']:.3f} (target ≤ 1.1).",
            "",
            f"Driver peak RSS (this Python process, incl. the local path): {rss:,.0f} MiB.",
            "",
        ]
    )
    print(text)
    write_result("spark.md", text, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
