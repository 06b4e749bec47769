"""TPC-H queries on data generated with tpchgen-cli."""

from __future__ import annotations

import os
import stat
import sys

import numpy as np
import pytest

import dpcount.datasets._tpch as tpch_module
from dpcount import DataError, InvalidParameterError
from dpcount.datasets import TPCH_QUERIES, tpch, tpch_sql, tpch_tables


def test_queries_at_small_scale(tpch_cache):
    sizes = {}
    for query in TPCH_QUERIES:
        g = tpch(query, 0.01, cache_dir=tpch_cache)
        sizes[query] = (g.n_persons, g.n_pairs, g.n_items)
        assert g.person_labels.dtype.kind == "i"
    # suppliers for PS.AQ and L.EP, customers for O.OD and L.RD
    assert sizes["PS.AQ"][0] == sizes["L.EP"][0]
    assert sizes["O.OD"][0] == sizes["L.RD"][0]
    assert all(n > 0 for size in sizes.values() for n in size)
    folder = tpch_cache / "tpch" / "sf0.01"
    assert sorted(p.name for p in folder.iterdir()) == [
        "customer.parquet",
        "lineitem.parquet",
        "orders.parquet",
        "partsupp.parquet",
        "supplier.parquet",
    ]


def test_item_label_types(tpch_cache):
    assert tpch("PS.AQ", 0.01, cache_dir=tpch_cache).item_labels.dtype.kind == "i"
    assert tpch("L.EP", 0.01, cache_dir=tpch_cache).item_labels.dtype == np.float64
    assert tpch("O.OD", 0.01, cache_dir=tpch_cache).item_labels.dtype == np.dtype("datetime64[D]")


def test_restrict_nation(tpch_cache):
    us = tpch("O.OD", 0.01, cache_dir=tpch_cache)
    everyone = tpch("O.OD", 0.01, restrict_nation=False, cache_dir=tpch_cache)
    assert everyone.n_persons > 10 * us.n_persons
    assert set(us.person_labels.tolist()) <= set(everyone.person_labels.tolist())


def test_cached_tables_are_reused(tpch_cache, monkeypatch):
    tpch_tables(0.01, ("supplier",), cache_dir=tpch_cache)

    def must_not_run(*args, **kwargs):
        raise AssertionError("tpchgen-cli ran although the table was cached")

    monkeypatch.setattr(tpch_module, "_generate", must_not_run)
    assert (tpch_tables(0.01, ("supplier",), cache_dir=tpch_cache) / "supplier.parquet").is_file()


def test_missing_generator_is_a_data_error(tmp_path, monkeypatch):
    monkeypatch.setattr(tpch_module.shutil, "which", lambda *args, **kwargs: None)
    with pytest.raises(DataError, match=r"tpchgen-cli.*pip install"):
        tpch("PS.AQ", 0.01, cache_dir=tmp_path)
    assert not any(tmp_path.rglob("*.parquet"))


def test_failed_generation_leaves_nothing(tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "tpchgen-cli"
    fake.parent.mkdir()
    # writes a partial file, then fails: nothing may reach the cache
    fake.write_text(
        f"#!{sys.executable}\n"
        "import sys, pathlib\n"
        "out = pathlib.Path(sys.argv[sys.argv.index('--output-dir') + 1])\n"
        "(out / 'supplier.parquet').write_text('partial')\n"
        "sys.exit('boom')\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(tpch_module, "_tpchgen", lambda: str(fake))
    with pytest.raises(DataError, match="boom"):
        tpch("PS.AQ", 0.01, cache_dir=tmp_path / "cache")
    leftovers = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert leftovers == []


def test_invalid_arguments(tmp_path):
    with pytest.raises(InvalidParameterError, match="unknown TPC-H query"):
        tpch("Q1", cache_dir=tmp_path)
    for bad in (0, -1, float("nan"), "1", True):
        with pytest.raises(InvalidParameterError, match="scale_factor"):
            tpch("PS.AQ", bad, cache_dir=tmp_path)


def test_sql_text():
    sql = tpch_sql("L.RD", "/x")
    assert "JOIN orders ON o_orderkey = l_orderkey" in sql
    assert sql.rstrip().endswith("WHERE c_nationkey >= 24")
    assert "WHERE" not in tpch_sql("L.RD", "/x", restrict_nation=False)
    assert "'/it''s/supplier.parquet'" in tpch_sql("PS.AQ", "/it's")


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setattr(tpch_module, "_default_cache", lambda: tmp_path / "user-cache")
    folder = tpch_tables(0.01, ("supplier",))
    assert folder == tmp_path / "user-cache" / "tpch" / "sf0.01"
    assert (folder / "supplier.parquet").is_file()


@pytest.mark.slow
def test_sf1_counts_match_the_papers(tpch_cache):
    expected = {
        "PS.AQ": (393, 31_310, 9_566),
        "L.EP": (393, 219_681, 194_159),
        "O.OD": (3_984, 59_728, 2_406),
        "L.RD": (3_984, 233_671, 2_539),
    }
    cache = os.environ.get("DPCOUNT_TEST_TPCH_CACHE", tpch_cache)
    for query, sizes in expected.items():
        g = tpch(query, 1.0, cache_dir=cache)
        assert (g.n_persons, g.n_pairs, g.n_items) == sizes, query
