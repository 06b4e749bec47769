"""The active SparkSession, and a clear error when PySpark or a session is missing."""

from __future__ import annotations

from typing import Any

from dpcount.errors import InvalidParameterError

__all__ = ["active_session", "require_pyspark"]


def require_pyspark() -> Any:
    """Import :mod:`pyspark.sql` or say how to install it."""
    try:
        import pyspark.sql
    except ImportError as exc:  # pragma: no cover - the spark extra is installed in CI
        raise ImportError(
            "dpcount.spark needs PySpark: pip install 'dpcount[spark]' (and Java 17)"
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
