"""Tumult Analytics releases for benchmarks/_peers.py, run in an interpreter that has Tumult.

Usage: ``python _tumult_worker.py TRIPLES.parquet N_GROUPS``.  Reads JSON lines from stdin:
``{"ping": true}`` answers ``{}`` once the data are loaded; ``{"k": K, "r": R, "epsilon": E}``
runs one grouped ``count_distinct`` of ``item`` over the public keys 0..N_GROUPS−1 after
``MaxGroupsPerID(K)`` and ``MaxRowsPerGroupPerID(R)`` with a fresh Session of budget
``PureDPBudget(E)``, and answers ``{"counts": [[group, count], ...], "scale": s, "seconds": t}``
with the noise scale Tumult reports for the query.  Imports nothing from dpcount.
"""

from __future__ import annotations

import json
import sys
import time


def main() -> int:
    """Serve releases until stdin closes."""
    from pyspark.sql import SparkSession
    from tmlt.analytics import (
        AddRowsWithID,
        KeySet,
        MaxGroupsPerID,
        MaxRowsPerGroupPerID,
        PureDPBudget,
        QueryBuilder,
        Session,
    )

    path, n_groups = sys.argv[1], int(sys.argv[2])
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.driver.memory", "6g")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    frame = spark.read.parquet(path).cache()
    frame.count()
    keys = KeySet.from_dict({"grp": list(range(n_groups))})
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("ping"):
            print("{}", flush=True)
            continue
        k, r, epsilon = int(message["k"]), int(message["r"]), float(message["epsilon"])
        start = time.perf_counter()
        session = Session.from_dataframe(
            privacy_budget=PureDPBudget(epsilon),
            source_id="triples",
            dataframe=frame,
            protected_change=AddRowsWithID(id_column="person"),
        )
        query = (
            QueryBuilder("triples")
            .enforce(MaxGroupsPerID("grp", k))
            .enforce(MaxRowsPerGroupPerID("grp", r))
            .groupby(keys)
            .count_distinct(columns=["item"], name="n")
        )
        info = session._noise_info(query, PureDPBudget(epsilon))  # the scale Tumult will use
        rows = session.evaluate(query, PureDPBudget(epsilon)).collect()
        seconds = time.perf_counter() - start
        answer = {
            "counts": [[int(row["grp"]), int(row["n"])] for row in rows],
            "scale": float(info[0]["noise_parameter"]),
            "seconds": seconds,
        }
        print(json.dumps(answer), flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
