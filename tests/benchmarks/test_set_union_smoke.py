"""The set-union benchmark runs end to end at smoke size (so it cannot rot)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.set_union import main


def test_set_union_benchmark_smoke(tmp_path: Path) -> None:
    path = main(["--smoke", "--out", str(tmp_path)])
    assert path == tmp_path / "set_union.md"
    text = path.read_text()
    for heading in (
        "Gopi et al. Table 2 analogue on reddit-like",
        "Chen et al. Table 1",
        "Time per algorithm on heavy-users",
        "Released items against ε",
        "Exact versus floating-point noise on reddit-like",
    ):
        assert heading in text
    assert "Policy Gaussian" in text and "DP-SIPS + MAD" in text
    png = tmp_path / "set_union_epsilon.png"
    assert png.exists() and png.stat().st_size > 1000
