"""The handle that passes person–item pairs held in Spark to the same mechanisms as a graph.

``weighted_gaussian(SparkPairs(df, person="user", item="item"), 1.0, 1e-6)`` runs the
distributed weighted Gaussian set union; ``weighted_gaussian(graph, 1.0, 1e-6)`` the local one.
Building the handle reads only the source's schema (no Spark job on the rows): the columns are
checked by name, so a missing one is an error before any release or charge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from dpcount.common.engines import EngineData
from dpcount.errors import InvalidParameterError
from dpcount.graph import PersonItemGraph
from dpcount.spark.ingest import (
    DRIVER_PAIR_LIMIT,
    check_columns,
    prepare_pairs,
    read_pairs,
    source_frame,
)
from dpcount.validation import check_positive_int

__all__ = ["SparkPairs"]


@dataclass(frozen=True, eq=False)
class SparkPairs(EngineData):
    """Person–item pairs in Spark, for the mechanisms whose declaration lists ``"spark"``.

    Parameters
    ----------
    data
        A Spark DataFrame, a table name, or a Parquet/CSV/JSON path (read through the active
        SparkSession), as :func:`dpcount.spark.read_pairs` takes it.
    person, item
        The names of the person and item columns.
    drop_nulls
        Drop rows with a null, empty or NaN id instead of refusing the data.
    max_pairs
        The most distinct pairs collected to the driver by releases that need the whole graph
        (``dp_distinct_count`` with ``counting="matching"`` or ``"greedy"``).

    Raises
    ------
    DataError
        For a column the source does not have (the message lists the ones it has).
    InvalidParameterError
        For a column name that is not a non-empty string, the same column twice, or a
        ``max_pairs`` that is not a positive integer.

    Examples
    --------
    >>> from pyspark.sql import SparkSession  # doctest: +SKIP
    >>> spark = SparkSession.builder.master("local[2]").getOrCreate()  # doctest: +SKIP
    >>> df = spark.createDataFrame([("ann", "x"), ("bob", "x")], "user string, item string")
    ... # doctest: +SKIP
    >>> from mechanisms import weighted_gaussian  # doctest: +SKIP
    >>> weighted_gaussian(SparkPairs(df, person="user", item="item"), 1.0, 1e-6, rng=7)
    ... # doctest: +SKIP
    """

    engine: ClassVar[str] = "spark"

    data: Any
    person: str
    item: str
    drop_nulls: bool = False
    max_pairs: int = DRIVER_PAIR_LIMIT
    #: The Spark DataFrame of ``data`` (a table or path resolved once, at construction).
    frame: Any = field(init=False, repr=False)

    def __post_init__(self) -> None:
        for role in ("person", "item"):
            name = getattr(self, role)
            if not isinstance(name, str) or not name:
                raise InvalidParameterError(
                    f"{role} must be a column name (a non-empty string), got {name!r}"
                )
        if self.person == self.item:
            raise InvalidParameterError(
                f"person and item must be two columns, got {self.person!r} for both"
            )
        if not isinstance(self.drop_nulls, bool):
            raise InvalidParameterError(
                f"drop_nulls must be True or False, got {self.drop_nulls!r}"
            )
        check_positive_int(self.max_pairs, "max_pairs")
        frame = source_frame(self.data)
        check_columns(frame, {"person": self.person, "item": self.item})
        object.__setattr__(self, "frame", frame)

    def pairs(self, *, dedupe: bool = False) -> Any:
        """The validated pairs as a Spark DataFrame with columns ``p`` and ``i`` (lazy; see
        :func:`dpcount.spark.ingest.prepare_pairs`, whose checks run one aggregation)."""
        return prepare_pairs(
            self.frame, self.person, self.item, None, self.drop_nulls, dedupe=dedupe
        )

    def check(self) -> dict[str, bool]:
        """Refuse data a release would refuse (nulls unless ``drop_nulls``, no rows), and say
        whether the graph fits the driver (``fits_driver``: at most ``max_pairs`` distinct
        pairs, for releases that collect it): two Spark jobs."""
        return {"fits_driver": self.pairs(dedupe=True).count() <= self.max_pairs}

    def to_graph(self) -> PersonItemGraph:
        """The pairs collected to a :class:`~dpcount.PersonItemGraph` (at most ``max_pairs``)."""
        return read_pairs(
            self.frame, self.person, self.item, None, self.drop_nulls, max_pairs=self.max_pairs
        )
