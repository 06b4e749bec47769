"""TPC-H distinct-count queries, on data generated locally with ``tpchgen-cli`` and cached.

The four queries are the ones used by R2T (Dong et al., 2022), the shifted-inverse mechanism
(Fang et al., 2022) and Knop & Steinke (2023):

======  ===================  =======================================  ================
query   person               item (counted distinct)                  tables
======  ===================  =======================================  ================
PS.AQ   supplier             ``ps_availqty``                          partsupp
L.EP    supplier             ``l_extendedprice``                      lineitem
O.OD    customer             ``o_orderdate``                          orders
L.RD    customer             ``l_receiptdate`` (lineitem ⋈ orders)    lineitem, orders
======  ===================  =======================================  ================

By default persons are restricted to suppliers/customers with nation key ≥ 24 (the one nation
UNITED STATES), as in those papers.  At scale factor 1 this gives persons / distinct pairs /
distinct items of 393 / 31,310 / 9,566 (PS.AQ), 393 / 219,681 / 194,159 (L.EP),
3,984 / 59,728 / 2,406 (O.OD) and 3,984 / 233,671 / 2,539 (L.RD).

Generated tables are Parquet files in ``platformdirs.user_cache_dir("dpcount")/tpch/sf<SF>``
(or ``cache_dir``); each is written into a temporary folder and renamed into place, so an
interrupted generation never leaves a partial table behind.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from dpcount.datasets._synthetic import check_scale_factor
from dpcount.errors import DataError, InvalidParameterError
from dpcount.graph import PersonItemGraph
from dpcount.io import read_pairs

__all__ = ["TPCH_QUERIES", "tpch", "tpch_sql", "tpch_tables"]

_NATION_KEY_MIN = 24  # nation keys run 0..24; 24 is UNITED STATES


@dataclass(frozen=True)
class _Query:
    tables: tuple[str, ...]  # tables read (the last one carries the nation key)
    select: str  # SQL producing the columns person, item
    nation_column: str  # supplier or customer nation key


_QUERIES = {
    "PS.AQ": _Query(
        ("partsupp", "supplier"),
        "SELECT ps_suppkey AS person, ps_availqty AS item FROM partsupp\n"
        "JOIN supplier ON s_suppkey = ps_suppkey",
        "s_nationkey",
    ),
    "L.EP": _Query(
        ("lineitem", "supplier"),
        "SELECT l_suppkey AS person, l_extendedprice AS item FROM lineitem\n"
        "JOIN supplier ON s_suppkey = l_suppkey",
        "s_nationkey",
    ),
    "O.OD": _Query(
        ("orders", "customer"),
        "SELECT o_custkey AS person, o_orderdate AS item FROM orders\n"
        "JOIN customer ON c_custkey = o_custkey",
        "c_nationkey",
    ),
    "L.RD": _Query(
        ("lineitem", "orders", "customer"),
        "SELECT o_custkey AS person, l_receiptdate AS item FROM lineitem\n"
        "JOIN orders ON o_orderkey = l_orderkey\nJOIN customer ON c_custkey = o_custkey",
        "c_nationkey",
    ),
}

#: The supported query names.
TPCH_QUERIES = tuple(_QUERIES)


def tpch(
    query: str,
    scale_factor: float = 1.0,
    *,
    restrict_nation: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
) -> PersonItemGraph:
    """Person–item graph of a TPC-H distinct-count query, generating the data if needed.

    Parameters
    ----------
    query
        ``"PS.AQ"``, ``"L.EP"``, ``"O.OD"`` or ``"L.RD"`` (see the module docstring).
    scale_factor
        TPC-H scale factor (1 ≈ 1 GB of text; a few seconds to generate, ~350 MB of Parquet).
    restrict_nation
        Keep only suppliers/customers with nation key ≥ 24, as in the papers.
    cache_dir
        Folder for the generated tables; default the user cache folder.  Tables are generated
        once per scale factor and reused.

    Returns
    -------
    PersonItemGraph
        Persons are supplier or customer keys (integers); items are quantities (integers),
        prices (floats) or dates (``datetime64``).

    Raises
    ------
    DataError
        If ``tpchgen-cli`` is not installed or fails.
    InvalidParameterError
        On an unknown query or a non-positive scale factor.

    Notes
    -----
    Data comes from ``tpchgen-cli`` (a Rust port of the TPC-H ``dbgen``, byte-identical output)
    and the query runs in DuckDB.

    Examples
    --------
    >>> g = tpch("PS.AQ", scale_factor=0.01)  # doctest: +SKIP
    >>> g.n_persons  # doctest: +SKIP
    6
    """
    if query not in _QUERIES:
        raise InvalidParameterError(
            f"unknown TPC-H query {query!r}; choose one of {', '.join(map(repr, TPCH_QUERIES))}"
        )
    spec = _QUERIES[query]
    folder = tpch_tables(scale_factor, spec.tables, cache_dir=cache_dir)
    return read_pairs(sql=tpch_sql(query, folder, restrict_nation=restrict_nation))


def tpch_sql(query: str, folder: str | os.PathLike[str], *, restrict_nation: bool = True) -> str:
    """The DuckDB SQL of a TPC-H query over the Parquet tables in ``folder``.

    Examples
    --------
    >>> print(tpch_sql("O.OD", "/data/sf1"))
    WITH orders AS (SELECT * FROM read_parquet('/data/sf1/orders.parquet')),
    customer AS (SELECT * FROM read_parquet('/data/sf1/customer.parquet'))
    SELECT o_custkey AS person, o_orderdate AS item FROM orders
    JOIN customer ON c_custkey = o_custkey
    WHERE c_nationkey >= 24
    """
    spec = _QUERIES[query]
    views = ",\n".join(
        f"{table} AS (SELECT * FROM read_parquet({_quote_literal(_table_path(folder, table))}))"
        for table in spec.tables
    )
    where = f"\nWHERE {spec.nation_column} >= {_NATION_KEY_MIN}" if restrict_nation else ""
    return f"WITH {views}\n{spec.select}{where}"


def tpch_tables(
    scale_factor: float,
    tables: tuple[str, ...] = ("supplier", "customer", "partsupp", "orders", "lineitem"),
    *,
    cache_dir: str | os.PathLike[str] | None = None,
) -> Path:
    """The folder holding ``<table>.parquet`` for each of ``tables``, generating missing ones.

    Examples
    --------
    >>> folder = tpch_tables(0.01, ("supplier",))  # doctest: +SKIP
    >>> sorted(p.name for p in folder.iterdir())  # doctest: +SKIP
    ['supplier.parquet']
    """
    scale_factor = check_scale_factor(scale_factor)
    root = Path(cache_dir).expanduser() if cache_dir is not None else _default_cache()
    folder = root / "tpch" / f"sf{scale_factor:g}"
    missing = [t for t in tables if not (folder / f"{t}.parquet").is_file()]
    if missing:
        folder.mkdir(parents=True, exist_ok=True)
        _generate(scale_factor, missing, folder)
    return folder


# --------------------------------------------------------------------------------------------


def _default_cache() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("dpcount"))


def _tpchgen() -> str:
    """Path of ``tpchgen-cli``: next to the running Python first (a venv), then on PATH."""
    found = shutil.which("tpchgen-cli", path=os.path.dirname(sys.executable)) or shutil.which(
        "tpchgen-cli"
    )
    if found is None:
        raise DataError(
            "the TPC-H generator 'tpchgen-cli' was not found next to Python or on PATH; "
            "install it with: pip install 'dpcount[data]'  (or: pip install tpchgen-cli)"
        )
    return found


def _generate(scale_factor: float, tables: list[str], folder: Path) -> None:
    """Run tpchgen-cli into a temporary folder beside ``folder`` and move the files in."""
    exe = _tpchgen()
    with tempfile.TemporaryDirectory(prefix=".generating-", dir=folder) as tmp:
        command = [
            exe,
            "parquet",
            "--scale-factor",
            f"{scale_factor:g}",
            "--tables",
            ",".join(tables),
            "--output-dir",
            tmp,
            "--quiet",
        ]
        try:
            subprocess.run(command, check=True, capture_output=True, text=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            detail = getattr(exc, "stderr", None) or str(exc)
            raise DataError(
                f"tpchgen-cli failed to generate TPC-H SF {scale_factor:g}: {detail.strip()}",
                source=exe,
            ) from exc
        for table in tables:
            produced = Path(tmp) / f"{table}.parquet"
            if not produced.is_file():
                raise DataError(f"tpchgen-cli did not write {produced.name}", source=exe)
            os.replace(produced, folder / produced.name)  # atomic within one file system


def _table_path(folder: str | os.PathLike[str], table: str) -> str:
    return str(Path(folder) / f"{table}.parquet")


def _quote_literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"
