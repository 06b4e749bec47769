"""Spark's default shuffle partitions against dpcount's setting, on a warm ``local[2]`` session.

Times :func:`mechanisms.spark.distinct_count` (``counting="sampling"``, the distributed path,
ℓ_max = 100) on reddit-like Parquet pairs (7.1M at scale 1) in one session, alternating
``spark.sql.shuffle.partitions`` between Spark's default (200) and the value
:func:`dpcount.spark.dpcount_session` gives the master (2 per core: 4 on ``local[2]``), after
``--warmups`` (2) untimed calls of each.  Reports the median seconds of each setting and
their ratio.

Usage: ``python -m benchmarks.spark_settings [--scale S] [--repeats R] [--warmups W]
[--out DIR]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks._common import machine, markdown_table, write_result
from benchmarks.spark import ELL_MAX, EPSILON, timed, write_parquet

SPARK_DEFAULT = 200


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="reddit-like scale (1: 7.1M)")
    parser.add_argument("--repeats", type=int, default=3, help="timed calls per setting")
    parser.add_argument("--warmups", type=int, default=2, help="untimed calls per setting")
    parser.add_argument("--out", type=Path, default=None, help="results directory")
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args(argv)
    from pyspark.sql import SparkSession

    from dpcount.spark import dpcount_session, session_defaults
    from mechanisms.spark import distinct_count

    warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas", FutureWarning)
    created = SparkSession.getActiveSession() is None
    spark = dpcount_session(
        args.master, {"spark.driver.memory": "6g", "spark.ui.enabled": "false"}, "dpcount-bench"
    )
    chosen = session_defaults(args.master, len(os.sched_getaffinity(0)), None)
    settings = (SPARK_DEFAULT, int(chosen["spark.sql.shuffle.partitions"]))
    before = spark.conf.get("spark.sql.shuffle.partitions")
    times: dict[int, list[float]] = {n: [] for n in settings}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pairs.parquet"
        n_pairs = write_parquet(args.scale, path)

        def count() -> None:
            distinct_count(
                str(path), "person", "item", EPSILON, ell_max=ELL_MAX, counting="sampling"
            )

        try:
            for n in settings:  # code generation and the JVM's JIT outside the timings
                spark.conf.set("spark.sql.shuffle.partitions", str(n))
                for _ in range(args.warmups):
                    count()
            for _ in range(args.repeats):
                for n in settings:
                    spark.conf.set("spark.sql.shuffle.partitions", str(n))
                    times[n].append(timed(count))
                    print(n, times[n][-1], flush=True)
        finally:
            spark.conf.set("spark.sql.shuffle.partitions", before)
            if created:
                spark.stop()
    write_result(
        "spark_settings.md",
        report(times, settings[1], n_pairs, args.master, args.warmups),
        args.out,
    )
    return 0


def report(
    times: dict[int, list[float]], chosen: int, n_pairs: int, master: str, warmups: int
) -> str:
    """The results page: each setting's median, range and ratio to dpcount's."""
    medians = {n: float(np.median(t)) for n, t in times.items()}
    rows = [
        [n, len(t), medians[n], min(t), max(t), medians[n] / medians[chosen]]
        for n, t in times.items()
    ]
    header = ["shuffle partitions", "runs", "median s", "min s", "max s", "÷ dpcount's"]
    text = (
        "# Spark shuffle partitions: Spark's default against dpcount's\n\n"
        f"Machine: {machine()}; Spark master {master} (warm session, driver memory 6g).  The "
        "machine is shared with other jobs, so seconds are noisy; the settings alternate within "
        "one run so that both see the same load.\n\n"
        f"mechanisms.spark.distinct_count(counting='sampling', ℓ_max = {ELL_MAX}) from a Parquet "
        f"file of {n_pairs:,} reddit-like pairs, after {warmups} untimed calls per setting.\n\n"
        f"{markdown_table(header, rows)}\n"
    )
    print(text)
    return text


if __name__ == "__main__":
    raise SystemExit(main())
