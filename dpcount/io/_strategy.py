"""How the rows of a pair source become a graph: the choice among the reader's fast paths.

In order of preference, for the projected rows (``p``, ``i`` and optionally ``c``):

1. **Integer keys** (:mod:`dpcount.io._int_keys`): a large Parquet source or table in memory
   whose ids are 32/64-bit integers from narrow ranges makes its pair keys from the values, and
   the CSR from the keys, without dictionaries.
2. **Arrow's Parquet reader** (:mod:`dpcount.io._parquet`): local Parquet files whose id columns
   are strings or integers are read with the dictionaries the files already store.
3. **DuckDB's stream**: anything else streams out of DuckDB as Arrow batches.

Paths 2 and 3 dictionary-encode the batches on the way (:mod:`dpcount.io._encode`) and hand the
codes to the graph assembly (:mod:`dpcount.graph.assembly`).  Every path gives the same graph;
a path that cannot read a source exactly steps aside (returns None) and leaves it to the next.
Only when the stream shows a problem – null, empty or NaN ids, null or negative counts, no rows –
are the rows checked by :func:`dpcount.io._checks.valid_rows`, which words the error or the
warning, and the valid rows streamed again.

Examples
--------
>>> from dpcount.io._columns import FileOptions, open_source
>>> query = "SELECT * FROM (VALUES (2, 'x'), (1, 'x'), (2, 'x')) t(person, item)"
>>> with open_source(None, query, None, FileOptions(), {"person": "person", "item": "item"}) as s:
...     build = stream_pairs(s, drop_nulls=False, count=None)
>>> build()
PersonItemGraph(n_persons=2, n_items=1, n_pairs=2)
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from dpcount.common.tuning import TUNING
from dpcount.errors import DataError
from dpcount.graph import PersonItemGraph, graph_from_code_groups, graph_from_rows
from dpcount.graph.deferred import DeferredLabels
from dpcount.io._checks import check_counts, check_float_ids, valid_rows
from dpcount.io._encode import EncodedPairs, NeedsChecks, encode_batches
from dpcount.io._errors import data_error, label_errors
from dpcount.io._frames import integer_columns
from dpcount.io._sql import quote_ident, quote_literal

if TYPE_CHECKING:
    import pyarrow as pa

    from dpcount.graph import Labels
    from dpcount.io._columns import OpenSource
    from dpcount.io._workspace import Workspace

__all__ = ["encode_parquet", "stream_pairs"]

#: Id types whose pair keys can be made from the values (:mod:`dpcount.io._int_keys`).
_INT_KEY_TYPES = {"INTEGER", "BIGINT"}


def stream_pairs(
    opened: OpenSource, drop_nulls: bool, count: str | None
) -> Callable[[], PersonItemGraph]:
    """What builds the graph of the source's pairs (and counts, from the column ``count``),
    read in one pass; it needs the workspace no more, so the caller may close it first (a
    private database then hands back its memory before the graph is built).

    The id aliases are ``p`` and ``i``; the count column, when given, is projected as ``c``.
    """
    work, types = opened.work, opened.types
    columns, projection, invalid = (
        dict(opened.columns),
        dict(opened.projection),
        dict(opened.invalid),
    )
    if count is not None:
        projection["c"] = quote_ident(count)
        invalid[count] = "c IS NULL"
        columns["c"] = count
    select = ", ".join(f"{expr} AS {alias}" for alias, expr in projection.items())
    with_counts = count is not None
    files = _parquet_files(work)
    graph = None if with_counts else _int_keys_graph(work, files, columns, types)
    if graph is not None:
        return lambda: graph
    try:
        encoded = encode_parquet(files, columns, types, with_counts)
        if encoded is None:
            encoded = _encode_stream(
                work, f"SELECT {select} FROM {work.source.relation}", with_counts
            )
    except NeedsChecks:
        valid = valid_rows(work, projection, invalid, drop_nulls, materialise=False)
        if count is not None:
            check_counts(work, valid, count)
        try:
            encoded = _encode_stream(
                work, f"SELECT {', '.join(projection)} FROM {valid}", with_counts
            )
        except NeedsChecks as exc:  # the checks above rule this out
            raise DataError(f"unexpected {exc} after the checks", source=work.source.name) from exc
    for alias, labels in (("p", encoded.person_labels), ("i", encoded.item_labels)):
        check_float_ids(labels, types[columns[alias]], columns[alias], work.source)
    return partial(_graph_of, encoded, types[columns["p"]], types[columns["i"]], work.source.name)


def _graph_of(
    encoded: EncodedPairs, person_type: str, item_type: str, source_name: str
) -> PersonItemGraph:
    """The graph of encoded pairs whose id columns have these DuckDB types."""
    with label_errors(source_name):
        return graph_from_code_groups(
            encoded.person_codes,
            encoded.item_codes,
            _arrow_labels(encoded.person_labels, person_type),
            _arrow_labels(encoded.item_labels, item_type),
            encoded.counts,
            all_items_held=encoded.counts is None and not encoded.unused_items,
            drop_unused_persons=encoded.unused_persons,
            person_maps=encoded.person_maps,
            item_maps=encoded.item_maps,
        )


def _parquet_files(work: Workspace) -> list[str] | None:
    """The files of a Parquet source given by path or glob (DuckDB's glob rules)."""
    source = work.source
    if source.format != "parquet" or source.path is None:
        return None
    pattern = quote_literal(source.path)
    return [str(row[0]) for row in work.run(f"SELECT file FROM glob({pattern})", "all")]


def _int_keys_graph(
    work: Workspace,
    files: list[str] | None,
    columns: Mapping[str, str],
    types: Mapping[str, str],
) -> PersonItemGraph | None:
    """The graph of a large Parquet source or table in memory whose ids are integers from
    narrow ranges, its pair keys made from the values (:mod:`dpcount.io._int_keys`); None
    where that does not apply (then the rows are encoded as any others)."""
    import pyarrow as pa

    from dpcount.io import _int_keys, _parquet

    person, item = columns["p"], columns["i"]
    if {types[person], types[item]} - _INT_KEY_TYPES:
        return None
    source = work.source
    min_rows = TUNING.int_keys_min_rows
    if source.frame is not None:
        found = integer_columns(source.frame, source.name, [person, item])
        if found is None or len(found[0]) < min_rows:
            return None
        persons, items = found
        plan = _int_keys.plan_int_columns(persons, items, person, item)
        batches: Iterator[pa.RecordBatch] | None = _int_keys.column_batches(persons, items)
    else:
        if not files:
            return None
        plan = _int_keys.plan_int_keys(files, person, item)
        batches = _parquet.parquet_batches(files, columns, types)
    if plan is None or plan.rows < min_rows or batches is None:
        return None
    try:
        keyed = _int_keys.read_int_keys(batches, plan)
    except (pa.ArrowException, OSError):  # Arrow re-raises some errors as OSError
        return None
    if keyed is None:
        return None
    indptr, indices, person_labels, item_labels = keyed
    return graph_from_rows(indptr, indices, person_labels, item_labels, all_items_held=True)


def encode_parquet(
    files: list[str] | None,
    columns: Mapping[str, str],
    types: Mapping[str, str],
    with_counts: bool,
) -> EncodedPairs | None:
    """Encode a Parquet source read by Arrow (:mod:`dpcount.io._parquet`), or None if it
    cannot be read that way exactly: then DuckDB reads it (and words any error)."""
    import pyarrow as pa

    from dpcount.io import _parquet

    if files is None:
        return None
    batches = _parquet.parquet_batches(files, columns, types)
    if batches is None:
        return None
    try:
        return encode_batches(batches, with_counts=with_counts)
    except (pa.ArrowException, OSError):  # Arrow re-raises some errors as OSError
        return None


def _encode_stream(work: Workspace, select: str, with_counts: bool) -> EncodedPairs:
    """Run ``select`` and encode its rows batch by batch (see :func:`encode_batches`)."""
    import duckdb
    import pyarrow as pa

    try:
        reader = work.con.sql(select).to_arrow_reader(TUNING.duckdb_batch_rows)
        try:
            return encode_batches(reader, with_counts=with_counts)
        finally:
            reader.close()  # frees the connection for the checks after NeedsChecks
    except (duckdb.Error, pa.ArrowException, OSError) as exc:  # Arrow re-raises as OSError
        raise data_error(exc, work.source.name) from exc


def _arrow_labels(labels: np.ndarray | pa.Array, duck_type: str) -> Labels:
    """Labels as the graph keeps them: strings from Arrow deferred (converted on first read),
    and UUIDs, which Arrow exports as text, made UUIDs.

    The canonical lower-case hex text sorts like the 128-bit value, so the order is kept.
    """
    if isinstance(labels, np.ndarray):
        return labels
    if duck_type != "UUID":
        return DeferredLabels(labels)
    out = np.empty(len(labels), dtype=object)
    out[:] = [uuid.UUID(text) for text in labels.to_pylist()]
    return out
