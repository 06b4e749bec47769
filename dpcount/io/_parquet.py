"""Parquet files read by Arrow with their own dictionaries: the reader's fast way into the codes.

Parquet stores string columns dictionary-encoded per row group, as a small page of distinct
values and an integer index per row.  Read as Arrow dictionary arrays, a file gives
:mod:`dpcount.io._encode` its codes without hashing every row: only the row groups' dictionaries
are unified.  (A column the writer stored plainly is hashed by Arrow while it decodes, in the
scan's threads.  So is a column whose first row group's dictionary has more than one entry per
five rows, as in a file in random row order: Arrow hashes every dictionary entry as it reads
it, and the row groups' dictionaries would all be kept until the end.)

The path is taken only where it gives exactly what DuckDB's path gives: local Parquet files
whose id columns Arrow reads as strings or 32/64-bit integers, the same types in every file
and the same types DuckDB sees (``VARCHAR``, ``INTEGER``, ``BIGINT``), and an integer count
column.  Anything else – other types, URLs, files whose schemas differ – returns None and
:mod:`dpcount.io` reads through DuckDB.  Files Arrow cannot read raise Arrow's error, which the
caller also answers by falling back to DuckDB (so errors are worded as always).

Examples
--------
>>> import pathlib, tempfile
>>> import pyarrow as pa, pyarrow.parquet as pq
>>> folder = tempfile.TemporaryDirectory()
>>> path = str(pathlib.Path(folder.name) / "pairs.parquet")
>>> pq.write_table(pa.table({"u": ["b", "a", "b"], "w": [7, 7, 5]}), path)
>>> columns = {"p": "u", "i": "w"}
>>> batches = parquet_batches([path], columns, {"u": "VARCHAR", "w": "BIGINT"})
>>> [batch.num_rows for batch in batches]
[3]
>>> parquet_batches([path], columns, {"u": "VARCHAR", "w": "DOUBLE"}) is None
True
>>> folder.cleanup()
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from dpcount.common.tuning import TUNING

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

__all__ = ["parquet_batches"]

#: Arrow types read here, by the DuckDB type the same column has on the DuckDB path.
_ARROW_TYPES = {
    "VARCHAR": ("string", "large_string"),
    "INTEGER": ("int32",),
    "BIGINT": ("int64",),
}
_COUNT_TYPES = ("int8", "int16", "int32", "int64")


def _value_type(arrow_type: pa.DataType) -> str:
    """The type name of a column's values (of its dictionary's values if dictionary-typed)."""
    import pyarrow as pa

    if pa.types.is_dictionary(arrow_type):
        arrow_type = arrow_type.value_type
    return str(arrow_type)


def parquet_batches(
    files: Sequence[str], columns: Mapping[str, str], duck_types: Mapping[str, str]
) -> Iterator[pa.RecordBatch] | None:
    """Batches of ``columns`` (alias -> column name) of the Parquet ``files``, ids dictionary-read.

    Returns None when Arrow's reading could differ from DuckDB's (see the module docstring);
    ``duck_types`` are the columns' DuckDB types.  The ``"c"`` alias, if present, is the count.
    """
    import pyarrow.parquet as pq

    if not files or any("://" in f for f in files):
        return None
    try:
        schemas = [pq.read_schema(f) for f in files]
    except (OSError, ValueError):  # Arrow's errors; DuckDB words them for the user
        return None
    wanted: dict[str, str] = {}
    for alias, column in columns.items():
        allowed = _COUNT_TYPES if alias == "c" else _ARROW_TYPES.get(duck_types[column], ())
        if column in wanted.values() or schemas[0].get_field_index(column) < 0:
            return None
        found = {_value_type(schema.field(column).type) for schema in schemas}
        if len(found) != 1 or found.pop() not in allowed:
            return None
        wanted[alias] = column
    return _scan(files, wanted)


def _dictionary_columns(parquet: pq.ParquetFile, names: Sequence[str]) -> list[str]:
    """The columns among ``names`` that the file stores with a dictionary in every row group.

    Only those are read as dictionaries: a column stored plainly would be hashed by the decoder
    into a dictionary per batch, which then costs more to unify than hashing it once.
    """
    metadata = parquet.metadata
    leaves = [parquet.schema.column(j).path for j in range(len(parquet.schema))]
    found = []
    for name in names:
        index = leaves.index(name) if name in leaves else -1
        if index >= 0 and all(
            metadata.row_group(k).column(index).has_dictionary_page
            for k in range(metadata.num_row_groups)
        ):
            found.append(name)
    return found


def _scan(files: Sequence[str], columns: Mapping[str, str]) -> Iterator[pa.RecordBatch]:
    """The batches; decoded with the C library's allocator as default pool while they stream.

    Arrow's Parquet reader allocates from the default pool, which keeps freed blocks (about
    70 MB more peak at 7M rows); the C allocator returns them (see dpcount.io._encode).  The
    default is set back when the scan ends, fails or is abandoned.
    """
    # pyarrow.parquet, not pyarrow.dataset: the latter imports pandas, which takes long.
    import pyarrow as pa
    import pyarrow.parquet as pq

    ids = [column for alias, column in columns.items() if alias != "c"]
    names = list(columns)
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        for path in files:
            with pq.ParquetFile(path) as plain:
                dictionaries = _dictionary_columns(plain, ids)
                row_groups = plain.metadata.num_row_groups
                stored = plain.schema_arrow
            first = 0
            if dictionaries and row_groups:
                table, dictionaries = _first_row_group(path, columns, dictionaries, stored)
                yield from _batches(table, names)
                first = 1
            with pq.ParquetFile(path, read_dictionary=dictionaries) as parquet:
                # Row group by row group: iter_batches keeps far more of the file in memory
                # (~400 MB more at 71M rows, measured).
                for k in range(first, row_groups):
                    table = parquet.read_row_group(k, columns=list(columns.values()))
                    yield from _batches(table, names)
    finally:
        pa.set_memory_pool(previous)


def _first_row_group(
    path: str, columns: Mapping[str, str], dictionaries: list[str], stored: pa.Schema
) -> tuple[pa.Table, list[str]]:
    """The first row group of the file, read with ``dictionaries`` as dictionaries, and the
    columns worth reading so in the others; columns that are not are decoded in that first
    group too, so that all its batches have the types of the later ones.  ``stored`` is the
    Arrow schema the file records (columns written from dictionary arrays read as such)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with pq.ParquetFile(path, read_dictionary=dictionaries) as parquet:
        table = parquet.read_row_group(0, columns=list(columns.values()))
    kept = []
    for name in dictionaries:
        column = table.column(name)
        text = pa.types.is_dictionary(column.type)  # Arrow reads only text as dictionaries
        always = pa.types.is_dictionary(stored.field(name).type)
        if not text or always:
            kept.append(name)
            continue
        entries = max((len(chunk.dictionary) for chunk in column.chunks), default=0)
        # A column with many dictionary entries per row is read plainly: Arrow hashes every
        # entry of each row group's dictionary as it reads it, which can cost more than hashing
        # the rows, and all row groups' dictionaries are kept until they are unified (measured
        # on a file in random row order: benchmarks/results/end_to_end.md, fifth round).
        if entries <= TUNING.parquet_plain_entries_per_row * max(len(column), 1):
            kept.append(name)
        else:
            index = table.schema.get_field_index(name)
            table = table.set_column(index, name, column.cast(column.type.value_type))
    return table, kept


def _batches(table: pa.Table, names: list[str]) -> Iterator[pa.RecordBatch]:
    """The table's rows as batches of at most ``TUNING.parquet_batch_rows``, their columns
    renamed."""
    import pyarrow as pa

    for batch in table.to_batches(max_chunksize=TUNING.parquet_batch_rows):
        yield pa.RecordBatch.from_arrays(batch.columns, names=names)
