"""Smoke run of benchmarks/end_to_end.py at a tiny size (so the script cannot rot)."""

from __future__ import annotations

import math

from benchmarks import end_to_end


def test_smoke_run_writes_every_file_kind(tmp_path):
    assert end_to_end.main(["--smoke", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "end_to_end.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| 2e+04")]
    assert [row.split("|")[2].strip() for row in rows] == [
        "parquet, int ids",
        "parquet, string ids",
        "parquet by Arrow, string ids",
        "parquet by Arrow, string ids, rows shuffled",
        "csv, int ids",
        "csv, string ids",
        "Arrow table in memory, int ids",
        "pandas DataFrame in memory, int ids",
        "Arrow table in memory, string ids",
        "pandas DataFrame in memory, string ids",
    ]
    for row in rows[:6]:
        *values, above_base = [float(x) for x in row.strip("|").split("|")[2:]]
        assert all(math.isfinite(v) and v > 0 for v in values)
        assert math.isfinite(above_base)  # bytes/pair above 400 MB: negative on tiny data
    for row in rows[6:]:  # tables in memory: (a) and (b) only, no CLI run
        cells = [x.strip() for x in row.strip("|").split("|")[2:]]
        assert all(math.isfinite(float(v)) and float(v) > 0 for v in cells[:9])
        assert cells[9:] == ["–"] * 4
    assert "np.sort + mask" in text and "empty `NUMBA_CACHE_DIR`" in text


def test_chunked_generation_reads_as_one_glob(tmp_path):
    from dpcount import read_pairs

    end_to_end.CHUNK_SCALE, saved = 0.002, end_to_end.CHUNK_SCALE
    try:
        files = end_to_end.generate(tmp_path, 3e4)
    finally:
        end_to_end.CHUNK_SCALE = saved
    assert len(list((tmp_path / "int_parquet").glob("*.parquet"))) > 1
    assert "csv, int ids" not in files  # CSV only for single-chunk sizes
    by_int = read_pairs(str(files["parquet, int ids"]))
    by_str = read_pairs(files["parquet, string ids"])
    assert by_int.n_pairs == by_str.n_pairs and by_int.n_persons == by_str.n_persons
    assert read_pairs(files["parquet by Arrow, string ids"]) == by_str
    assert read_pairs(files["parquet by Arrow, string ids, rows shuffled"]) == by_str
