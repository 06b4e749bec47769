"""The DPDistinctCount benchmark runs end to end at smoke size and writes its tables."""

from __future__ import annotations

from benchmarks.dp_distinct_count import RESULT_NAME, main


def test_smoke(tmp_path):
    path = main(["--smoke", "--out", str(tmp_path)])
    assert path == tmp_path / RESULT_NAME
    text = path.read_text()
    assert "## End-to-end time" in text and "## fashion-like" in text
    for label in ("Max Contrib", "90th PC Contrib", "Max Utility", "DP Max Utility (GEM)"):
        assert label in text
    for counting in ("sampling", "greedy", "matching"):
        assert f"| {counting} |" in text
