"""Read person–item pairs from Spark: validate, deduplicate, dictionary-encode, collect to CSR.

The encoding order is the local reader's: sorted distinct labels (strings by code point —
Spark compares strings by their UTF-8 bytes, the same order — integers by value).  The distinct
labels are collected and sorted once on the driver (O(persons + items)); the pairs are encoded
in Spark by joining with those dictionaries and reach the driver only as two int columns of
Arrow batches, and only below a public, configurable pair limit (:data:`DRIVER_PAIR_LIMIT`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcount.errors import DataError, InvalidParameterError, Option
from dpcount.graph import PersonItemGraph, graph_from_codes
from dpcount.graph.labels import as_label_array
from dpcount.spark._session import active_session, require_pyspark
from dpcount.spark.frames import collect

__all__ = [
    "DRIVER_PAIR_LIMIT",
    "check_columns",
    "label_array",
    "prepare_pairs",
    "read_pairs",
    "source_frame",
]

#: Most pairs :func:`read_pairs` collects to the driver unless ``max_pairs`` says otherwise
#: (about 0.6 GB of codes and CSR at 12 bytes per pair).
DRIVER_PAIR_LIMIT = 50_000_000

_FORMATS = {".parquet": "parquet", ".csv": "csv", ".json": "json", ".jsonl": "json"}


def source_frame(data: Any) -> Any:
    """A Spark DataFrame from a DataFrame, a table name, or a Parquet/CSV/JSON path."""
    sql = require_pyspark()
    if isinstance(data, sql.DataFrame):
        return data
    if not isinstance(data, str):
        raise InvalidParameterError(
            f"data must be a Spark DataFrame, a table name or a path, got {type(data).__name__}"
        )
    spark = active_session()
    suffix = next((s for s in _FORMATS if data.lower().rstrip("/").endswith(s)), None)
    if suffix is None and spark.catalog.tableExists(data):
        return spark.table(data)
    fmt = _FORMATS.get(suffix or "", "parquet")
    try:
        reader = spark.read.format(fmt)
        if fmt == "csv":
            reader = reader.option("header", "true").option("inferSchema", "true")
        return reader.load(data)
    except Exception as exc:
        raise DataError(
            f"{data}: cannot read as {fmt} through Spark: {exc}".splitlines()[0]
        ) from exc


def _invalid(df: Any, column: str) -> Any:
    """Spark condition: the column's value is null, an empty string, or NaN."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    col = F.col(column)
    kind = df.schema[column].dataType
    cond = col.isNull()
    if isinstance(kind, T.StringType):
        cond = cond | (col == "")
    if isinstance(kind, T.FloatType | T.DoubleType):
        cond = cond | F.isnan(col)
    return cond


def check_columns(df: Any, roles: dict[str, str]) -> None:
    """Refuse a frame without the columns ``roles`` names (role → column), in one line that
    lists the columns it has (reads the schema only)."""
    missing = [f"{role} column {col!r}" for role, col in roles.items() if col not in df.columns]
    if missing:
        raise DataError(f"{' and '.join(missing)} not found; available columns: {df.columns}")


def prepare_pairs(
    data: Any,
    person: str,
    item: str,
    count: str | None = None,
    drop_nulls: bool = False,
    *,
    dedupe: bool = True,
) -> Any:
    """Validated pairs as a Spark DataFrame with columns ``p``, ``i`` (and ``c``); deduplicated
    unless ``dedupe=False`` (for callers that deduplicate per person themselves).

    Errors as the local reader: a missing column, null/empty/NaN ids (unless ``drop_nulls``),
    negative counts, or no rows left raise :class:`~dpcount.errors.DataError`.
    """
    from pyspark.sql import functions as F

    df = source_frame(data)
    check_columns(
        df, {"person": person, "item": item} | ({"count": count} if count is not None else {})
    )
    bad = _invalid(df, person) | _invalid(df, item)
    if count is not None:
        bad = bad | _invalid(df, count)
    row = df.agg(F.count(F.lit(1)).alias("n"), F.sum(bad.cast("long")).alias("bad")).first()
    total, n_bad = int(row["n"]), int(row["bad"] or 0)
    if n_bad and not drop_nulls:
        raise DataError(
            f"{n_bad} of {total} rows have a null, empty or NaN id or count; pass ",
            Option("drop_nulls", True),
            " to skip those rows",
        )
    df = df.where(~bad) if n_bad else df
    if total - n_bad == 0:
        raise DataError("no rows: the Spark source is empty" + (" after dropping nulls" * n_bad))
    cols = [F.col(person).alias("p"), F.col(item).alias("i")]
    if count is None:
        return df.select(*cols).distinct() if dedupe else df.select(*cols)
    n_negative = df.where(F.col(count) < 0).count()
    if n_negative:
        raise DataError(f"{n_negative} rows have a negative count in column {count!r}")
    summed = df.groupBy(*cols).agg(F.sum(F.col(count).cast("long")).alias("c"))
    return summed.where(F.col("c") > 0)


def label_array(column: Any, what: str) -> np.ndarray:
    """Labels from a collected Arrow column, typed as the local reader types them."""
    return as_label_array(column.to_pylist(), what)


def sorted_labels(pairs: Any, column: str, what: str) -> np.ndarray:
    """The sorted distinct labels of one column, collected once (O(distinct) on the driver)."""
    return np.unique(label_array(collect(pairs.select(column).distinct()).column(0), what))


def _codes(spark: Any, pairs: Any, labels: np.ndarray, column: str, code: str) -> Any:
    """Replace a label column by its code in ``labels`` (a join with the dictionary)."""
    import pandas as pd
    from pyspark.sql import functions as F

    dictionary = spark.createDataFrame(
        pd.DataFrame({column: labels.tolist(), code: np.arange(labels.size, dtype=np.int32)}),
        schema=f"{column} {pairs.schema[column].dataType.simpleString()}, {code} int",
    )
    return pairs.join(F.broadcast(dictionary), on=column).drop(column)


def read_pairs(
    data: Any,
    person: str,
    item: str,
    count: str | None = None,
    drop_nulls: bool = False,
    *,
    max_pairs: int = DRIVER_PAIR_LIMIT,
) -> PersonItemGraph:
    """Build a :class:`~dpcount.PersonItemGraph` from pairs held in Spark.

    Parameters
    ----------
    data
        A Spark DataFrame, a table name, or a Parquet/CSV/JSON path (read through the active
        SparkSession).
    person, item
        Column names of the person and item ids.
    count
        Optional column of non-negative integer multiplicities, summed over duplicate pairs.
    drop_nulls
        Drop rows with a null, empty or NaN id instead of raising.
    max_pairs
        Refuse, before collecting anything per pair, when more distinct pairs than this exist.

    Returns
    -------
    PersonItemGraph
        Equal to the local reader's graph on the same data.

    Raises
    ------
    DataError
        Missing column, nulls (unless ``drop_nulls``), negative counts, no rows, or more than
        ``max_pairs`` pairs.

    Examples
    --------
    >>> from pyspark.sql import SparkSession  # doctest: +SKIP
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
    >>> df = spark.createDataFrame([("ann", "x"), ("bob", "x")], "u string, w string")
    ... # doctest: +SKIP
    >>> read_pairs(df, person="u", item="w").n_pairs  # doctest: +SKIP
    2
    """
    pairs = prepare_pairs(data, person, item, count, drop_nulls).cache()
    try:
        n_pairs = pairs.count()
        if n_pairs > max_pairs:
            raise DataError(
                f"{n_pairs} distinct pairs exceed the driver limit ",
                Option("max_pairs", max_pairs),
                "; use a distributed release (a set union on SparkPairs, or ",
                Option("counting", "sampling"),
                ") or raise ",
                Option("max_pairs"),
            )
        person_labels = sorted_labels(pairs, "p", "person labels")
        item_labels = sorted_labels(pairs, "i", "item labels")
        spark = pairs.sparkSession
        encoded = _codes(
            spark, _codes(spark, pairs, person_labels, "p", "pc"), item_labels, "i", "ic"
        )
        table = encoded.select("pc", "ic", *(["c"] if count is not None else [])).toArrow()
    finally:
        pairs.unpersist()
    person_codes = table.column("pc").to_numpy().astype(np.int64)
    item_codes = table.column("ic").to_numpy().astype(np.int64)
    counts = table.column("c").to_numpy().astype(np.int64) if count is not None else None
    return graph_from_codes(person_codes, item_codes, person_labels, item_labels, counts)
