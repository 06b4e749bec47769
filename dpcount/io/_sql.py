"""SQL text the readers send to DuckDB: quoting, id expressions and the test of an unusable id.

Ids keep DuckDB's column types where NumPy represents them exactly and orders them like DuckDB
(strings by code point, through ``COLLATE C``); other types are cast or refused.

Examples
--------
>>> print(quote_ident('a"b'), quote_literal("it's"))
"a""b" 'it''s'
>>> label_expr("user", "VARCHAR", "a.csv"), invalid_expr("p", "DOUBLE")
('"user" COLLATE C', '(p IS NULL OR isnan(p))')
"""

from __future__ import annotations

import re

from dpcount.errors import DataError

__all__ = [
    "INTEGER_TYPES",
    "invalid_expr",
    "label_expr",
    "quote_ident",
    "quote_literal",
]

#: DuckDB's integer types (a count column must have one).
INTEGER_TYPES = frozenset(
    {
        "TINYINT",
        "SMALLINT",
        "INTEGER",
        "BIGINT",
        "UTINYINT",
        "USMALLINT",
        "UINTEGER",
        "UBIGINT",
    }
)
_PLAIN_ID_TYPES = INTEGER_TYPES | {
    "FLOAT",
    "DOUBLE",
    "BOOLEAN",
    "DATE",
    "TIME",
    "TIMESTAMP",
    "TIMESTAMP_S",
    "TIMESTAMP_MS",
    "TIMESTAMP_NS",
    "TIMESTAMP WITH TIME ZONE",
    "UUID",
}
_MAX_EXACT_DECIMAL_DIGITS = 15  # every decimal with ≤ 15 digits survives a trip through float64


def quote_ident(name: str) -> str:
    """``name`` as a DuckDB identifier."""
    return '"' + name.replace('"', '""') + '"'


def quote_literal(value: str) -> str:
    """``value`` as a DuckDB string literal."""
    return "'" + value.replace("'", "''") + "'"


def label_expr(column: str, duck_type: str, source_name: str) -> str:
    """SQL for an id column whose values NumPy represents exactly and orders like DuckDB."""
    col = quote_ident(column)
    if duck_type == "VARCHAR":
        return f"{col} COLLATE C"  # byte order = code point order, as Python sorts strings
    if duck_type.startswith("ENUM("):
        return f"CAST({col} AS VARCHAR) COLLATE C"  # enums sort by declaration order otherwise
    if duck_type in _PLAIN_ID_TYPES:
        return col
    if duck_type in ('"NULL"', "NULL"):  # only nulls: counted and reported as any null id
        return col
    if duck_type in ("HUGEINT", "UHUGEINT"):
        # e.g. JSON integers; NumPy has no 128-bit integers, and a value out of range fails
        # loudly in the cast rather than turning into a float.
        return f"CAST({col} AS {'BIGINT' if duck_type == 'HUGEINT' else 'UBIGINT'})"
    decimal = re.fullmatch(r"DECIMAL\((\d+),(\d+)\)", duck_type.replace(" ", ""))
    if decimal and int(decimal.group(1)) <= _MAX_EXACT_DECIMAL_DIGITS:
        return f"CAST({col} AS DOUBLE)"
    raise DataError(
        f"id column {column!r} has type {duck_type}, which dpcount cannot use as a label; "
        "cast it in SQL to VARCHAR, BIGINT or DOUBLE",
        source=source_name,
    )


def invalid_expr(alias: str, duck_type: str) -> str:
    """SQL condition that an id is unusable: null, an empty string, or NaN."""
    if duck_type == "VARCHAR" or duck_type.startswith("ENUM("):
        return f"({alias} IS NULL OR {alias} = '')"
    if duck_type in ("FLOAT", "DOUBLE") or duck_type.startswith("DECIMAL"):
        return f"({alias} IS NULL OR isnan({alias}))"
    return f"({alias} IS NULL)"
