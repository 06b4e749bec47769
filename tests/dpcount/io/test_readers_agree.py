"""Every reader over every input kind: the same rows give the same graph, or the same error.

The same generated rows – ids that are integers or unicode strings, with nulls, empty strings
and mixed kinds (``1`` beside ``"1"``) – are written as CSV, TSV, Parquet and JSON lines files,
held as pandas, polars and Arrow tables and a DuckDB relation, and passed as sequences (pairs,
triples, a dict of sets, texts).  Then:

* :func:`dpcount.read_pairs`, ``PersonItemGraph.from_dataframe``, ``from_pairs`` and
  ``from_sets`` give one graph; :func:`dpcount.read_triples`, ``read_pairs(group=)``,
  ``GroupedGraph.from_dataframe`` and ``from_triples`` one grouped graph;
  :func:`dpcount.read_texts` and :func:`dpcount.ngram_graph` one n-gram graph;
* or all of them refuse the rows with a :class:`~dpcount.errors.DataError` – the table kinds,
  which share one source path, in identical words apart from the name of the source; the
  sequences naming the same problem – and the problem is the one the rows have: ids of two
  kinds in one column before anything else, else a null or empty id.

An input kind that cannot hold the rows as they are is left out for them: a CSV file has no
types, so ``1`` and ``"1"`` in one column are both text there, and Parquet, Arrow, polars and
DuckDB columns have one type each.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import dpcount
from dpcount import DataError, GroupedGraph, PersonItemGraph

# -- the rows ----------------------------------------------------------------------------------

#: Letters, marks, digits, punctuation and symbols from all of Unicode (no spaces, controls or
#: surrogates).  Strings start with a letter, so that no file reader takes them for numbers,
#: dates or booleans; the first letters include the one code point Python and DuckDB lower-case
#: differently ("İ") and one beyond the basic plane.
_TAIL = st.text(alphabet=st.characters(categories=("L", "M", "N", "P", "S")), max_size=4)
_STRINGS = st.builds(str.__add__, st.sampled_from(["a", "Z", "é", "İ", "中", "𝔸"]), _TAIL)
_INTEGERS = st.integers(-(2**40), 2**40)


@st.composite
def _pool(draw: st.DrawFn) -> list[Any]:
    """The ids of one column: integers or strings, sometimes with a null, an empty string or
    an id of the other kind."""
    integers = draw(st.booleans())
    pool = draw(st.lists(_INTEGERS if integers else _STRINGS, min_size=1, max_size=4))
    trouble = draw(st.sampled_from([None, None, None, "null", "empty", "other kind"]))
    if trouble == "null":
        pool.append(None)
    elif trouble == "empty":
        pool.append("")
    elif trouble == "other kind":
        pool.append(draw(_STRINGS if integers else _INTEGERS))
    return pool


@st.composite
def _rows(draw: st.DrawFn, columns: Sequence[str], texts: bool = False) -> dict[str, list]:
    """Rows of the id ``columns`` (each drawing from its own pool), and a text column."""
    pools = {column: draw(_pool()) for column in columns}
    n = draw(st.integers(1, 7))
    data = {c: [draw(st.sampled_from(pool)) for _ in range(n)] for c, pool in pools.items()}
    if texts:
        words = st.lists(_STRINGS, min_size=1, max_size=3).map(" ".join)
        data["text"] = [draw(words) for _ in range(n)]
    return data


def _kinds(values: list) -> set[type]:
    return {type(v) for v in values if v is not None}


def _mixed(data: dict[str, list]) -> bool:
    return any(len(_kinds(values)) > 1 for values in data.values())


def _expected_problem(data: dict[str, list], ids: Sequence[str]) -> str | None:
    """What is wrong with the rows, as every reader must say: mixed kinds come first."""
    if any(len(_kinds(data[c])) > 1 for c in ids):
        return "mixed"
    if any(v is None or v == "" for c in ids for v in data[c]):
        return "null"
    return None


# -- the input kinds ---------------------------------------------------------------------------

FILE_KINDS = ("csv", "tsv", "parquet", "jsonl")
TABLE_KINDS = ("pandas", "polars", "arrow", "duckdb")


def _frame(data: dict[str, list]) -> pd.DataFrame:
    """A pandas frame as a user would have it: integer columns typed (nullable), else objects."""
    return pd.DataFrame(
        {c: pd.Series(v, dtype="Int64" if _kinds(v) == {int} else object) for c, v in data.items()}
    )


def _source(data: dict[str, list], kind: str, folder: Path) -> Any | None:
    """The rows as an input of this kind, or None if the kind cannot hold them as they are."""
    if _mixed(data) and kind not in ("pandas", "jsonl"):
        return None
    if kind == "jsonl":
        path = folder / "rows.jsonl"
        lines = [
            json.dumps(dict(zip(data, row, strict=True)))
            for row in zip(*data.values(), strict=True)
        ]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path
    frame = _frame(data)
    if kind in ("csv", "tsv"):
        path = folder / f"rows.{kind}"
        frame.to_csv(path, index=False, sep="," if kind == "csv" else "\t")
        return path
    if kind == "pandas":
        return frame
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if kind == "parquet":
        pq.write_table(table, folder / "rows.parquet")
        return folder / "rows.parquet"
    if kind == "polars":
        return pl.from_arrow(table)
    if kind == "arrow":
        return table
    return duckdb.from_arrow(table)


# -- outcomes ----------------------------------------------------------------------------------


def _outcome(read: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """("graph", graph) or ("error", message without the source); other exceptions propagate."""
    try:
        return "graph", read(*args, **kwargs)
    except DataError as exc:
        return "error", exc.message


def _problem(message: str) -> str:
    if "mix label types" in message:
        return "mixed"
    if "null" in message:
        return "null"
    return message


def _check_agreement(
    tables: dict[str, tuple[str, Any]],
    sequences: dict[str, tuple[str, Any]],
    expected_problem: str | None,
) -> None:
    outcomes = {**tables, **sequences}
    if expected_problem is None:
        assert {kind for kind, (what, _) in outcomes.items() if what != "graph"} == set(), outcomes
        graphs = [graph for _, graph in outcomes.values()]
        assert all(graph == graphs[0] for graph in graphs), outcomes
        return
    assert {kind for kind, (what, _) in outcomes.items() if what != "error"} == set(), outcomes
    assert len({message for _, message in tables.values()}) <= 1, tables
    assert {_problem(message) for _, message in outcomes.values()} == {expected_problem}, outcomes


_SETTINGS = settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@_SETTINGS
@given(_rows(("person", "item")))
@example({"person": [1, 2, 1], "item": ["中x", "aé", "𝔸"]})  # a graph
@example({"person": [1, "1"], "item": ["a", "a"]})  # mixed kinds
@example({"person": [1, "a"], "item": [None, "a"]})  # mixed kinds before a null
@example({"person": [1, 2], "item": ["", "a"]})  # an empty string is a null
@example({"person": [0], "item": [None]})  # a column of nulls only (DuckDB's type NULL)
def test_pairs(data: dict[str, list]) -> None:
    ids = {"person": "person", "item": "item"}
    tables = {}
    with tempfile.TemporaryDirectory() as folder:
        for kind in FILE_KINDS + TABLE_KINDS:
            source = _source(data, kind, Path(folder))
            if source is None:
                continue
            tables[kind] = _outcome(dpcount.read_pairs, source, **ids)
            if kind in TABLE_KINDS:
                tables[f"{kind} from_dataframe"] = _outcome(
                    PersonItemGraph.from_dataframe, source, **ids
                )
    sets: dict[Any, set] = {}
    for person, item in zip(data["person"], data["item"], strict=True):
        sets.setdefault(person, set()).add(item)
    sequences = {
        "pairs": _outcome(PersonItemGraph.from_pairs, data["person"], data["item"]),
        "dict of sets": _outcome(PersonItemGraph.from_sets, sets),
    }
    _check_agreement(tables, sequences, _expected_problem(data, list(ids)))


@_SETTINGS
@given(_rows(("person", "group", "item")))
@example({"person": [1, 2, 1], "group": ["a", "a", "b"], "item": [5, 6, 5]})
@example({"person": [1, 2], "group": ["a", 1], "item": [5, 6]})
@example({"person": [None, 2], "group": ["a", "b"], "item": [5, 6]})
def test_triples(data: dict[str, list]) -> None:
    ids = {"person": "person", "group": "group", "item": "item"}
    tables = {}
    with tempfile.TemporaryDirectory() as folder:
        for kind in FILE_KINDS + TABLE_KINDS:
            source = _source(data, kind, Path(folder))
            if source is None:
                continue
            tables[kind] = _outcome(dpcount.read_triples, source, **ids)
            tables[f"{kind} read_pairs(group=)"] = _outcome(
                dpcount.read_pairs, source, person="person", item="item", group="group"
            )
            if kind in TABLE_KINDS:
                tables[f"{kind} from_dataframe"] = _outcome(
                    GroupedGraph.from_dataframe, source, **ids
                )
    triples = (data["person"], data["group"], data["item"])
    sequences = {"triples": _outcome(GroupedGraph.from_triples, *triples)}
    _check_agreement(tables, sequences, _expected_problem(data, list(ids)))


@_SETTINGS
@given(_rows(("person",), texts=True), st.sampled_from([1, 2]))
@example({"person": ["a", "b"], "text": ["İz Zé", "a中 a中"]}, 2)
@example({"person": ["a", 1], "text": ["x", "y"]}, 1)
@example({"person": ["a", ""], "text": ["x", "y"]}, 1)
def test_texts(data: dict[str, list], n: int) -> None:
    tables = {}
    with tempfile.TemporaryDirectory() as folder:
        for kind in FILE_KINDS + TABLE_KINDS:
            source = _source(data, kind, Path(folder))
            if source is not None:
                tables[kind] = _outcome(dpcount.read_texts, source, ngram=n)
    sequences = {"texts": _outcome(dpcount.ngram_graph, data["person"], data["text"], n)}
    _check_agreement(tables, sequences, _expected_problem(data, ["person"]))
