"""``--engine spark``: run ``count`` and ``union`` on a Spark cluster (extra ``spark``).

Everything Spark cannot run is refused by :func:`check_spark` before the JVM starts (Spark's
start-up takes tens of seconds); the session comes from
:func:`dpcount.spark.dpcount_session`, which gives a session it creates settings that
suit its master and lets the master of ``spark-submit`` win.  The commands then call the same
release function as on the local engine, with :func:`spark_pairs` instead of a graph.
"""

from __future__ import annotations

import argparse
import warnings
from typing import TYPE_CHECKING, Any

from mechanisms.registry import names

from ._common import Source, UserError, note, show_progress
from ._progress import progress

if TYPE_CHECKING:  # PySpark is an optional extra: imported when --engine spark runs
    from dpcount.spark import SparkPairs

#: Read options of the local readers that Spark's reader does not take.
_LOCAL_READ_OPTIONS = {
    "no_header": "--no-header",
    "columns": "--columns",
    "delimiter": "--delimiter",
    "encoding": "--encoding",
    "format": "--format",
}


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """``--engine``, ``--spark-master`` and ``--spark-conf``."""
    group = parser.add_argument_group("engine")
    group.add_argument(
        "--engine",
        choices=("local", "spark"),
        default="local",
        help="where to compute: this process (default) or Spark, reading FILE through Spark",
    )
    group.add_argument(
        "--spark-master",
        metavar="URL",
        help="Spark master for --engine spark (default: the master given to spark-submit or "
        "in spark-defaults.conf, else local[*])",
    )
    group.add_argument(
        "--spark-conf",
        action="append",
        type=spark_setting,
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting for --engine spark, e.g. spark.driver.memory=6g (repeatable; "
        "wins over dpcount's defaults: 2 shuffle partitions per local core, quiet logs)",
    )


def spark_setting(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` as a pair (argparse type of ``--spark-conf``).

    Examples
    --------
    >>> spark_setting("spark.sql.shuffle.partitions=8")
    ('spark.sql.shuffle.partitions', '8')
    """
    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value:
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    return key.strip(), value


def check_spark(args: argparse.Namespace, source: Source) -> None:
    """Refuse, before Spark starts, what ``--engine spark`` cannot run; check the flags that
    only apply to it."""
    if args.engine != "spark":
        for flag, given in (
            ("--spark-master", args.spark_master),
            ("--spark-conf", args.spark_conf),
        ):
            if given:
                raise UserError(f"{flag} applies to --engine spark")
        return
    if source.kind != "file":
        raise UserError("--engine spark reads a FILE (Parquet, CSV or JSON) or a directory of them")
    for name, flag in _LOCAL_READ_OPTIONS.items():
        if getattr(args, name, None) not in (None, False):
            raise UserError(
                f"{flag} applies to the local engine; --engine spark reads Parquet, JSON or CSV "
                "with a header, by the file's suffix"
            )
    algorithm = getattr(args, "algorithm", None)
    if algorithm is None:
        return
    available = names(family="set_union", engine="spark")
    if algorithm not in available:
        raise UserError(
            f"--algorithm {algorithm} cannot run on Spark (the policy mechanisms are sequential "
            f"by nature); choose one of {', '.join(available)}, or drop --engine spark"
        )


def start_spark(args: argparse.Namespace, command: str) -> Any:
    """The session (created with dpcount's settings unless one is active), and a note on
    stderr saying where the job runs: a submitted job that silently ran on the driver alone
    shows ``local[*]`` there."""
    try:
        from dpcount.spark import dpcount_session
    except ImportError as exc:
        raise UserError("--engine spark needs PySpark: pip install '.[spark]'") from exc
    # PySpark 4.x warns on every Arrow call under pandas 3; dpcount's use of pandas is plain.
    warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas", FutureWarning)
    with progress("starting Spark", enabled=show_progress(args)):
        session = dpcount_session(args.spark_master, dict(args.spark_conf))
    partitions = session.conf.get("spark.sql.shuffle.partitions")
    note(command, f"Spark master {session.sparkContext.master}, {partitions} shuffle partitions")
    return session


def spark_pairs(source: Source) -> SparkPairs:
    """The FILE as :class:`dpcount.spark.SparkPairs`, read through the session
    :func:`start_spark` made active: the data the release functions take on Spark, as they take
    a graph locally, so that the command line runs the same function as the Python API (through
    the mechanisms' Spark adapter)."""
    from dpcount.spark import SparkPairs

    return SparkPairs(
        source.value, person=source.person, item=source.item, drop_nulls=source.drop_nulls
    )
