"""``--engine spark`` shows its stages like the local engine: Spark's start and the job."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd


def test_spark_stages_have_progress_lines(
    spark: Any, tmp_path: Path, progress_labels: list[str], capsys: Any
) -> None:
    from dpcount.cli import main

    path = tmp_path / "pairs.parquet"
    pd.DataFrame({"person": [f"u{i % 7}" for i in range(60)], "item": range(60)}).to_parquet(path)
    common = [str(path), "--engine", "spark", "--seed", "1", "--progress"]
    assert main(["count", *common, "--counting", "sampling", "--ell-max", "3"]) == 0
    assert main(["union", *common]) == 0
    assert progress_labels == [
        "starting Spark",
        f"counting {path} on Spark",
        "starting Spark",
        "running dp_sips on Spark",
    ]
    assert main(["count", *common[:-1], "--counting", "sampling", "--no-progress"]) == 0
    assert len(progress_labels) == 4
