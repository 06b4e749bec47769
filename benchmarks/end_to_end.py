"""End to end: a file of person–item pairs to a private bound, against DuckDB's COUNT DISTINCT.

For each generated file (Parquet and CSV; integer and string ids; string-id Parquet written by
DuckDB and by Arrow, which differ in which columns they dictionary-encode, and by Arrow once
more with the rows in random order rather than grouped by person) one run measures,
each in a fresh subprocess so that its peak RSS is its own:

(a) DuckDB ``SELECT count(DISTINCT item), count(DISTINCT person) FROM file``, and (a') the
    same query again in that process;
(b) ``dpcount.read_pairs`` + ``mechanisms.dp_distinct_count`` (ε = 1) in Python, and (b') the
    same again in that process (imports done, compiled kernels loaded);
(c) the CLI ``python -m dpcount count FILE --epsilon 1`` as a subprocess.

The integer-id and the Arrow-written string-id files are also loaded into memory, as an Arrow
table and as a pandas DataFrame, before (a) and (b) start their clocks: DuckDB then queries the
table, and ``read_pairs`` takes it (no CLI run, and no budget, for these rows).

(a) and (b) report the seconds of the work inside the process: (a) after ``import duckdb``, (b)
after ``import dpcount`` but with what a first call loads lazily (pyarrow, DuckDB, numba and its
cached kernels), which (b') no longer pays; (c) reports wall seconds of the whole command.  The
ratios (b)/(a) (first calls) and (b')/(a') (both warm) are the figures of merit: the machine may
be shared, but both run in the same session.  Before anything, the run writes a few GB of memory
once (``--touch-memory-gb``, see :func:`touch_memory`).  Also reported: the sort floor on the
item ids
(``np.unique`` against ``np.sort`` + a neighbour mask, so that a NumPy change that moves it is
seen) and the first-call time of ``python -m dpcount count --dataset fashion-like --epsilon 1``
with ``NUMBA_CACHE_DIR`` pointing at a fresh directory.

The data follow the Reddit-like preset's law
(``dpcount.datasets.load("reddit-like", scale_factor=s)``; scale 1 is about 7 million pairs).
Larger sizes are written in chunks of at most scale 10, each
chunk its own Parquet file with its own persons (labels offset per chunk) and the shared item
vocabulary, so generation needs memory for one chunk only; the files are read as a glob.

Run ``python -m benchmarks.end_to_end`` (7.1M and 71M pairs), ``--smoke`` for a seconds-long
version, ``--pairs N`` for one size (beyond one chunk, about 70M pairs, e.g. ``1e9``: Parquet
only), ``--out DIR`` to write elsewhere.  Data go to a temporary directory that
is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._common import machine, markdown_table, write_result
from dpcount import datasets

RESULT_NAME = "end_to_end.md"
PAIRS_AT_SCALE_1 = 6.95e6  # reddit-like at scale 1 (measured: 69,489 pairs at scale 0.01)
CHUNK_SCALE = 10.0
ROOT = Path(__file__).resolve().parents[1]

#: Loads the Parquet file(s) argv[1] into memory as argv[2] ("arrow" or "pandas") before the
#: clock starts; "file" leaves argv[1] a file.
_LOAD = """
import sys
source, kind = sys.argv[1], sys.argv[2]
if kind != "file":
    import glob, pyarrow as pa, pyarrow.parquet as pq
    table = pa.concat_tables([pq.read_table(f) for f in sorted(glob.glob(source))])
    source = table if kind == "arrow" else table.to_pandas()
    del table
"""

_DUCKDB = (
    _LOAD
    + """
import duckdb, json, time
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")
if kind != "file":
    con.register("frame", source)
    source = "frame"
query = "SELECT count(DISTINCT item), count(DISTINCT person) FROM " + source
start = time.perf_counter()
con.execute(query).fetchall()
seconds = time.perf_counter() - start
start = time.perf_counter()  # again in the same process, as (b')
con.execute(query).fetchall()
print(json.dumps({"seconds": seconds, "warm": time.perf_counter() - start}))
"""
)

_DPCOUNT = (
    _LOAD
    + """
import json, time
from dpcount import read_pairs
from mechanisms.distinct_count import dp_distinct_count
start = time.perf_counter()
graph = read_pairs(source)
read = time.perf_counter() - start
result = dp_distinct_count(graph, 1.0, rng=1)
seconds = time.perf_counter() - start
pairs = graph.n_pairs
del graph, result
start = time.perf_counter()  # again in the same process: imports and kernels already loaded
result = dp_distinct_count(read_pairs(source), 1.0, rng=1)
warm = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "read": read, "warm": warm, "pairs": pairs}))
"""
)

#: Peak RSS budget of ``dpcount count`` on N pairs (issue 12): 400 MB + 16 bytes per pair.
BUDGET_BASE_MB = 400.0
BUDGET_BYTES_PER_PAIR = 16.0


def _measure(
    argv: Sequence[str], env: dict[str, str] | None = None, *, result: bool = True
) -> dict[str, Any]:
    """Run ``argv`` under ``/usr/bin/time -v``: wall seconds, peak RSS (MB) and its JSON line."""
    environment = os.environ | {"PYTHONPATH": str(ROOT)} | (env or {})
    start = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-v", *argv], capture_output=True, text=True, env=environment
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {done.stderr.strip().splitlines()[-5:]}")
    rss_kb = next(
        int(line.split(":")[1]) for line in done.stderr.splitlines() if "Maximum resident" in line
    )
    doc: dict[str, Any] = {"wall": wall, "rss_mb": rss_kb / 1024}
    lines = [line[line.index("{") :] for line in done.stdout.splitlines() if "{" in line]
    if result and not lines:  # e.g. a progress bar took the place of the result line
        raise RuntimeError(f"{argv[:3]} printed no result: {done.stdout[-300:]!r}")
    if result:
        doc |= json.loads(lines[-1])
    return doc


def generate(directory: Path, pairs: float, seed: int = 0) -> dict[str, Path]:
    """Write Parquet (integer ids) chunks of ``pairs`` pairs, then the string/CSV variants."""
    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq

    int_dir = directory / "int_parquet"
    int_dir.mkdir(parents=True)
    total_scale = pairs / PAIRS_AT_SCALE_1
    n_chunks = max(1, math.ceil(total_scale / CHUNK_SCALE))
    offset = 0
    for k in range(n_chunks):
        graph = datasets.load("reddit-like", scale_factor=total_scale / n_chunks, seed=seed + k)
        persons = np.repeat(graph.person_labels.astype(np.int64) + offset, np.diff(graph.indptr))
        items = graph.item_labels.astype(np.int64)[graph.indices]
        pq.write_table(pa.table({"person": persons, "item": items}), int_dir / f"{k:05}.parquet")
        offset += int(graph.person_labels.max()) + 1
        del graph, persons, items
    files = {"parquet, int ids": int_dir / "*.parquet"}
    con = duckdb.connect()
    source = f"read_parquet('{int_dir}/*.parquet')"
    strings = f"SELECT 'u' || person::VARCHAR AS person, 'w' || item::VARCHAR AS item FROM {source}"
    con.execute(f"COPY ({strings}) TO '{directory / 'str.parquet'}' (FORMAT parquet)")
    files["parquet, string ids"] = directory / "str.parquet"
    # The same rows written by Arrow, which dictionary-encodes both string columns per row
    # group (DuckDB's writer stores the item column plainly: too many distinct values).  The
    # rows come grouped by person, as the generator makes them; the second copy has them in
    # random order, so that every row group holds many persons of the others.
    _write_by_arrow(con, strings, directory / "str_arrow.parquet")
    files["parquet by Arrow, string ids"] = directory / "str_arrow.parquet"
    shuffled = f"SELECT * FROM ({strings}) ORDER BY hash(person, item)"
    _write_by_arrow(con, shuffled, directory / "str_arrow_shuffled.parquet")
    files["parquet by Arrow, string ids, rows shuffled"] = directory / "str_arrow_shuffled.parquet"
    if n_chunks == 1:  # CSV at the sizes the table reports, not at a billion pairs
        con.execute(f"COPY (SELECT * FROM {source}) TO '{directory / 'int.csv'}' (HEADER)")
        con.execute(f"COPY ({strings}) TO '{directory / 'str.csv'}' (HEADER)")
        files["csv, int ids"] = directory / "int.csv"
        files["csv, string ids"] = directory / "str.csv"
    return files


def _write_by_arrow(con: Any, query: str, path: Path) -> None:
    """Write the rows of a DuckDB ``query`` with Arrow's Parquet writer, batch by batch."""
    import pyarrow.parquet as pq

    reader = con.sql(query).to_arrow_reader(1 << 20)
    with pq.ParquetWriter(path, reader.schema) as writer:
        for batch in reader:
            writer.write_batch(batch)


def _duckdb_from(path: Path) -> str:
    if path.suffix == ".csv":
        return f"read_csv('{path}')"
    return f"read_parquet('{path}')"


def run_size(pairs: float, directory: Path) -> list[list[Any]]:
    """Rows of the main table for one size: every file through (a), (b) and, when the data
    fit one chunk, (c)."""
    rows: list[list[Any]] = []
    files = generate(directory, pairs)
    for label, path in files.items():
        a = _measure([sys.executable, "-c", _DUCKDB, _duckdb_from(path), "file"])
        b = _measure([sys.executable, "-c", _DPCOUNT, str(path), "file"])
        c = _measure(
            [sys.executable, "-m", "dpcount", "count", str(path), "--epsilon", "1"], result=False
        )
        budget = BUDGET_BASE_MB + BUDGET_BYTES_PER_PAIR * b["pairs"] / 2**20
        above_base = (c["rss_mb"] - BUDGET_BASE_MB) * 2**20 / b["pairs"]
        cli = [c["wall"], c["rss_mb"], budget, above_base]
        rows.append([f"{pairs:.3g}", label, *_duckdb_and_dpcount(a, b), *cli])
    for label, path in files.items():
        if label in _IN_MEMORY:  # the same rows as a table in memory; no CLI run
            rows += [_in_memory_row(pairs, label, path, kind) for kind in ("arrow", "pandas")]
    return rows


#: The files also read as tables in memory, and what the rows say they are.
_IN_MEMORY = {"parquet, int ids": "int ids", "parquet by Arrow, string ids": "string ids"}


def _in_memory_row(pairs: float, label: str, path: Path, kind: str) -> list[Any]:
    """(a) and (b) on the file's rows loaded as an Arrow table or a pandas DataFrame first."""
    a = _measure([sys.executable, "-c", _DUCKDB, str(path), kind])
    b = _measure([sys.executable, "-c", _DPCOUNT, str(path), kind])
    table = "Arrow table" if kind == "arrow" else "pandas DataFrame"
    name = f"{table} in memory, {_IN_MEMORY[label]}"
    return [f"{pairs:.3g}", name, *_duckdb_and_dpcount(a, b), *["–"] * 4]


def _duckdb_and_dpcount(a: dict[str, Any], b: dict[str, Any]) -> list[Any]:
    """The cells of (a), (b) and their ratios, first and warm, in the table's order."""
    return [
        a["seconds"],
        a["rss_mb"],
        b["seconds"],
        b["read"],
        b["rss_mb"],
        b["seconds"] / a["seconds"],
        a["warm"],
        b["warm"],
        b["warm"] / a["warm"],
    ]


def sort_floor(pairs: float) -> list[Any]:
    """np.unique (hashing in NumPy ≥ 2.3) against np.sort + neighbour mask on the item ids."""
    graph = datasets.load("reddit-like", scale_factor=pairs / PAIRS_AT_SCALE_1, seed=0)
    items = np.random.default_rng(0).permutation(graph.indices)
    start = time.perf_counter()
    by_unique = np.unique(items)
    t_unique = time.perf_counter() - start
    start = time.perf_counter()
    ordered = np.sort(items)
    keep = np.empty(ordered.size, dtype=bool)
    keep[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    by_sort = ordered[keep]
    t_sort = time.perf_counter() - start
    assert np.array_equal(by_unique, by_sort)
    return [f"{items.size:,}", t_unique, t_sort, t_unique / t_sort, np.__version__]


def first_call() -> dict[str, Any]:
    """``python -m dpcount count --dataset fashion-like`` with an empty numba cache."""
    with tempfile.TemporaryDirectory() as cache:
        argv = [sys.executable, "-m", "dpcount", "count", "--dataset", "fashion-like"]
        return _measure([*argv, "--epsilon", "1"], env={"NUMBA_CACHE_DIR": cache}, result=False)


def touch_memory(gigabytes: float) -> None:
    """Write ``gigabytes`` of fresh memory once and free it.

    On a virtual machine whose memory the host backs lazily (this project's machines), the
    first write to each page the guest has never used costs ~8 µs per 4 KB – ten times a
    later fault on the same page – so whichever process happens to get such pages first is
    slowed by up to ~2 s per GB, as a cold laptop never is.  Touching memory once up front
    gives the subprocesses measured after it pages that are already backed, alike for DuckDB
    and dpcount.
    """
    block = 1 << 27  # 1 GB of float64 at a time
    for _ in range(math.ceil(gigabytes)):
        np.ones(block, dtype=np.float64)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, seconds in all")
    parser.add_argument("--pairs", type=float, help="one size only (e.g. 1e9)")
    parser.add_argument("--out", type=Path, help="folder for end_to_end.md")
    parser.add_argument(
        "--touch-memory-gb", type=float, default=6.0, help="memory to touch once first (0: none)"
    )
    args = parser.parse_args(argv)
    touch_memory(0.0 if args.smoke else args.touch_memory_gb)
    sizes = [2e4] if args.smoke else [args.pairs] if args.pairs else [7.1e6, 7.1e7]
    rows: list[list[Any]] = []
    for pairs in sizes:
        with tempfile.TemporaryDirectory(prefix="dpcount-e2e-") as tmp:
            size_rows = run_size(pairs, Path(tmp))
        rows += size_rows
        for row in size_rows:
            print(" | ".join(str(x) for x in row), flush=True)
    header = [
        "pairs",
        "file",
        "(a) DuckDB s",
        "(a) MB",
        "(b) dpcount s",
        "(b) of which read_pairs s",
        "(b) MB",
        "(b)/(a)",
        "(a') again s",
        "(b') again s",
        "(b')/(a')",
        "(c) CLI wall s",
        "(c) MB",
        "(c) budget MB",
        "(c) bytes/pair above 400 MB",
    ]
    floor = sort_floor(sizes[0])
    first = first_call()
    text = "\n\n".join(
        [
            "# End to end: file to private bound, against DuckDB's COUNT DISTINCT",
            f"Machine: {machine()} (shared with other jobs: compare ratios, not seconds). "
            "Each measurement is a fresh subprocess; MB = its peak RSS (`/usr/bin/time -v`). "
            "(a) and (b) time the work inside the process; (c) is the wall time of "
            "`python -m dpcount count FILE --epsilon 1`.  Budget: peak RSS of (c) at most "
            "400 MB + 16 bytes per (distinct) pair.",
            markdown_table(header, rows),
            "## Sort floor on the item ids",
            markdown_table(
                ["item ids", "np.unique s", "np.sort + mask s", "ratio", "NumPy"], [floor]
            ),
            "## First call",
            "`python -m dpcount count --dataset fashion-like --epsilon 1` with an empty "
            f"`NUMBA_CACHE_DIR`: {first['wall']:.2f} s wall, {first['rss_mb']:.0f} MB peak.",
            "Regenerate with `python -m benchmarks.end_to_end`.",
        ]
    )
    path = write_result(RESULT_NAME, text + "\n", args.out)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
