"""SparkSessions: the active one, and the one dpcount creates with settings that suit its master.

A session dpcount creates (``dpcount ... --engine spark``, :func:`dpcount_session`) gets:

* ``spark.sql.shuffle.partitions`` = 2 × the cores of a ``local[N]`` / ``local[*]`` /
  ``local-cluster[N,C,M]`` master (Spark's default of 200 tasks per shuffle costs a warm
  ``local[2]`` distinct count ten times its time; docs/spark.md has the measurement); other
  masters keep Spark's default, which adaptive query execution coalesces;
* quiet logs (``spark.log.level=ERROR``, and a JVM started here logs errors only from its
  start, :data:`QUIET_LOG4J`) and no console progress bar;
* for masters on this machine, the Python workers run the driver's interpreter
  (``PYSPARK_PYTHON`` = :data:`sys.executable` when neither it nor ``spark.pyspark.python`` is
  set), so a CLI started from an unactivated venv finds its packages in the workers.

The master given to ``spark-submit`` (or in ``spark-defaults.conf``) wins over dpcount's
``local[*]``; so does every setting given there or in ``conf``: dpcount only fills in the
settings nobody gave.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dpcount.common.cores import available_cores
from dpcount.errors import InvalidParameterError

__all__ = [
    "active_session",
    "dpcount_session",
    "master_cores",
    "require_pyspark",
    "session_defaults",
]

#: The master when neither the caller, ``spark-submit`` nor ``spark-defaults.conf`` gives one.
DEFAULT_MASTER = "local[*]"

#: Shuffle partitions per core of a local master: a little slack for skewed tasks.
PARTITIONS_PER_CORE = 2

#: The JVM's logging configuration when dpcount starts the JVM: errors only, no start-up
#: warnings (``spark.log.level`` applies once the context runs).
QUIET_LOG4J = (Path(__file__).parent / "log4j2-quiet.properties").as_uri()

_LOCAL = re.compile(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?")
_LOCAL_CLUSTER = re.compile(r"local-cluster\[\s*(\d+)\s*,\s*(\d+)\s*,\s*\d+\s*\]")


def require_pyspark() -> Any:
    """Import :mod:`pyspark.sql` or say how to install it."""
    try:
        import pyspark.sql
    except ImportError as exc:  # pragma: no cover - the spark extra is installed in CI
        raise ImportError(
            "dpcount.spark needs PySpark: pip install '.[spark]' from the dpcount source "
            "(and Java 17)"
        ) from exc
    return pyspark.sql


def active_session() -> Any:
    """The active SparkSession; an error if there is none."""
    sql = require_pyspark()
    session = sql.SparkSession.getActiveSession()
    if session is None:
        raise InvalidParameterError(
            "no active SparkSession: create one (SparkSession.builder.getOrCreate()) or pass a "
            "DataFrame"
        )
    return session


def master_cores(master: str, available: int) -> int | None:
    """The cores a master on this machine uses, or None for a cluster master.

    ``available`` is what ``local[*]`` means (the cores this process may use).

    Examples
    --------
    >>> [master_cores(m, 8) for m in ("local", "local[3]", "local[*]", "local[2,4]")]
    [1, 3, 8, 2]
    >>> master_cores("local-cluster[2, 3, 1024]", 8), master_cores("yarn", 8)
    (6, None)
    """
    master = master.strip()
    if found := _LOCAL.fullmatch(master):
        n = found.group(1)
        return 1 if n is None else available if n == "*" else max(1, int(n))
    if found := _LOCAL_CLUSTER.fullmatch(master):
        return int(found.group(1)) * int(found.group(2))
    return None


def session_defaults(master: str, available: int, python: str | None) -> dict[str, str]:
    """The settings dpcount gives a session it creates on ``master``.

    ``python`` is the interpreter for the Python workers, set for masters on this machine
    (None: leave it to Spark).

    Examples
    --------
    >>> session_defaults("local[2]", 8, "/venv/bin/python")["spark.sql.shuffle.partitions"]
    '4'
    >>> sorted(session_defaults("yarn", 8, "/venv/bin/python"))
    ['spark.log.level', 'spark.ui.showConsoleProgress']
    """
    settings = {"spark.log.level": "ERROR", "spark.ui.showConsoleProgress": "false"}
    cores = master_cores(master, available)
    if cores is not None:
        settings["spark.sql.shuffle.partitions"] = str(PARTITIONS_PER_CORE * cores)
        if python is not None:
            settings["spark.pyspark.python"] = python
    return settings


def _launched_conf(master: str | None, conf: Mapping[str, str]) -> dict[str, str]:
    """Start (or, under ``spark-submit``, join) the JVM and return the settings it was given.

    Under ``spark-submit`` the JVM is already running with the submitted master and ``--conf``
    settings; otherwise it starts here with ``conf`` (so JVM-level settings such as
    ``spark.driver.memory`` take effect) and ``spark-defaults.conf``.
    """
    from pyspark import SparkConf, SparkContext

    launch = SparkConf(loadDefaults=False).setAll(list(conf.items()))
    if master is not None:
        launch.setMaster(master)
    joined = SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ
    if not joined and "spark.driver.extraJavaOptions" not in conf:
        launch.set("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={QUIET_LOG4J}")
    # The one private call: PySpark's own way to reach the JVM before a context exists.
    SparkContext._ensure_initialized(conf=launch)
    settings = dict(SparkConf().getAll())
    if not joined and "spark.ui.showConsoleProgress" not in conf:
        # PySpark starts its own JVM as a shell, which turns the progress bar on: nobody chose it.
        settings.pop("spark.ui.showConsoleProgress", None)
    return settings


def dpcount_session(
    master: str | None = None, conf: Mapping[str, str] | None = None, app_name: str = "dpcount"
) -> Any:
    """The active SparkSession, or a new one with settings that suit its master.

    Parameters
    ----------
    master
        The master URL; None takes the one given to ``spark-submit`` or in
        ``spark-defaults.conf``, else ``local[*]``.
    conf
        Spark settings; they win over dpcount's defaults (:func:`session_defaults`), as do the
        settings given to ``spark-submit``.
    app_name
        The application's name in the Spark UI.

    Returns
    -------
    pyspark.sql.SparkSession
        An active session is returned as it is (its settings are the caller's).
    """
    sql = require_pyspark()
    active = sql.SparkSession.getActiveSession()
    if active is not None:
        return active
    given = dict(conf or {})
    master = given.pop("spark.master", master)
    launched = _launched_conf(master, given)
    chosen = master or launched.get("spark.master", DEFAULT_MASTER)
    # Workers on this machine run the driver's interpreter unless one is named; PySpark reads
    # it from the environment when the context starts.
    python = os.environ.get("PYSPARK_PYTHON") or launched.get("spark.pyspark.python")
    defaults = session_defaults(chosen, available_cores(), python or sys.executable)
    if "spark.pyspark.python" in defaults:
        os.environ.setdefault("PYSPARK_PYTHON", defaults["spark.pyspark.python"])
    settings = {k: v for k, v in defaults.items() if k not in launched} | given
    builder = sql.SparkSession.builder.appName(app_name).master(chosen)
    for key, value in settings.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()
