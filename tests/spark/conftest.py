"""One local[2] SparkSession for all Spark tests; skipped cleanly without PySpark or Java."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dpcount import PersonItemGraph

pyspark = pytest.importorskip("pyspark")


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    if shutil.which("java") is None:
        pytest.skip("Java is not installed (PySpark needs Java 17)")
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("dpcount-tests")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def skewed_pairs(spark: Any) -> tuple[Any, PersonItemGraph]:
    """3000 pairs (columns ``u``, ``w``) with geometric item popularity, as a cached Spark
    frame and as a graph: many items sit near a set union's threshold, so releases depend on
    the seed."""
    rng = np.random.default_rng(4)
    persons = [f"p{p}" for p in rng.integers(0, 300, 3000)]
    items = [f"i{i}" for i in np.minimum(rng.geometric(0.1, 3000), 120)]
    frame = spark.createDataFrame(pd.DataFrame({"u": persons, "w": items})).cache()
    return frame, PersonItemGraph.from_pairs(persons, items)
