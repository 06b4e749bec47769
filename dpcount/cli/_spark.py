"""``--engine spark``: run ``count`` and ``union`` on a Spark cluster (extra ``spark``)."""

from __future__ import annotations

import argparse
import warnings
from typing import Any

from ._common import Source, UserError


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """``--engine`` and ``--spark-master``."""
    group = parser.add_argument_group("engine")
    group.add_argument(
        "--engine",
        choices=("local", "spark"),
        default="local",
        help="where to compute: this process (default) or Spark, reading FILE through Spark",
    )
    group.add_argument(
        "--spark-master",
        default="local[*]",
        metavar="URL",
        help="Spark master for --engine spark (default: local[*]; under spark-submit the "
        "submitted master wins)",
    )


def _session(args: argparse.Namespace, source: Source) -> Any:
    if source.kind != "file":
        raise UserError("--engine spark reads a FILE (Parquet, CSV or JSON) or a directory of them")
    try:
        from pyspark.sql import SparkSession
    except ImportError as exc:
        raise UserError("--engine spark needs PySpark: pip install 'dpcount[spark]'") from exc
    # PySpark 4.x warns on every Arrow call under pandas 3; dpcount's use of pandas is plain.
    warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas", FutureWarning)
    builder = SparkSession.builder.appName("dpcount")
    if SparkSession.getActiveSession() is None:
        builder = builder.master(args.spark_master)
    return builder.getOrCreate()


def spark_count(args: argparse.Namespace, source: Source) -> Any:
    """``dpcount count --engine spark``."""
    from dpcount.spark import distinct_count, source_frame

    _session(args, source)  # active from here on; source_frame reads through it
    return distinct_count(
        source_frame(source.value),
        source.person,
        source.item,
        args.epsilon,
        beta=args.beta,
        ell_max=args.ell_max,
        ell=args.ell,
        counting=args.counting,
        rng=args.seed,
        drop_nulls=source.drop_nulls,
    )


def spark_union(args: argparse.Namespace, source: Source) -> Any:
    """``dpcount union --engine spark``."""
    from dpcount.spark import set_union, source_frame

    _session(args, source)
    return set_union(
        source_frame(source.value),
        source.person,
        source.item,
        epsilon=args.epsilon,
        delta=args.delta,
        max_items=args.max_items,
        mechanism=args.algorithm,
        rng=args.seed,
        drop_nulls=source.drop_nulls,
    )
