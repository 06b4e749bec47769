"""A ``sql=`` source: exactly one read-only ``SELECT``, checked before it runs.

The readers use a query as a subquery of their own statements, ``(<query>) AS
dpcount_query``.  Text pasted there could close the parenthesis and run anything after it
(``… ) AS q; COPY … TO 'file'; --``), on dpcount's database or on the caller's
``connection=``.  So the query is parsed first, on a database of dpcount's own, and refused
unless it is:

* exactly one statement, a ``SELECT`` (``FROM …``, ``VALUES …``, ``WITH … SELECT`` are
  ``SELECT`` s too): ``COPY``, ``ATTACH``, ``INSTALL``/``LOAD``, ``CREATE``, ``INSERT``,
  ``DROP``, ``PRAGMA``, ``SET``, ``CALL``, ``EXPORT`` … are statements of other kinds, and a
  second statement is refused whatever it is;
* without prepared-statement parameters (``$1``, ``?``): the readers pass none;
* not storing the rows a CSV reader rejects (``store_rejects``, ``rejects_table``,
  ``rejects_scan``): that creates tables, on the caller's connection too;
* not naming a local file that is not a regular file: a named pipe without a writer would
  block the read for ever, ``/dev/zero`` would never end (:mod:`dpcount.io._files`).  The
  paths looked at are the string arguments of table functions (``read_csv('…')``) and
  file names in ``FROM '…'``; globs are expanded.

The statement's own text, as the parser delimits it, is what the readers then use, on lines
of its own so that a trailing comment cannot swallow what follows.  On dpcount's own database
the query runs on a connection that cannot install or load extensions nor change any setting
(:func:`dpcount.io._connections.private_connection`); it may read files, which is what a
query is for.  On the caller's ``connection=`` the caller's settings hold; a single
``SELECT`` reads their tables and changes none.

Examples
--------
>>> print(checked_query("SELECT 1 AS person, 'x' AS item;"))
SELECT 1 AS person, 'x' AS item
>>> checked_query("SELECT 1 AS person) AS q; DROP TABLE visits; --")
Traceback (most recent call last):
...
dpcount.errors.DataError: SQL query: cannot parse the query: Parser Error: syntax error at or \
near ")"
>>> checked_query("SELECT 1 AS person; COPY (SELECT 1) TO 'out.csv'")
Traceback (most recent call last):
...
dpcount.errors.InvalidParameterError: sql must be one SELECT query; got 2 statements (SELECT, \
COPY)
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from typing import Any

from dpcount.errors import DataError, InvalidParameterError
from dpcount.io._connections import shared_cursor
from dpcount.io._errors import first_line
from dpcount.io._files import GLOB_CHARS, check_glob, check_not_special, is_local

__all__ = ["QUERY_NAME", "checked_query"]

#: How errors name a query source.
QUERY_NAME = "SQL query"

#: Options of DuckDB's CSV reader that create tables of the rows it rejects.
_TABLE_MAKING_OPTIONS = frozenset({"store_rejects", "rejects_table", "rejects_scan"})

#: The words a SELECT may start with.
_SELECT_WORDS = frozenset(
    {"SELECT", "FROM", "WITH", "VALUES", "TABLE", "SUMMARIZE", "DESCRIBE", "SHOW"}
)

#: Functions a SELECT may call that change something, with why they are refused: ``query``
#: runs a query given as text, which the checks here could not look into.
_REFUSED_FUNCTIONS = {
    "query": "runs a query given as text; write that query itself",
    "nextval": "advances a sequence",
    "setseed": "changes the connection's random seed",
}


def checked_query(sql: Any) -> str:
    """The text of ``sql``'s one ``SELECT`` statement, after the checks of the module
    docstring.

    Raises
    ------
    InvalidParameterError
        ``sql`` is not a string, is empty, or is not exactly one ``SELECT`` without parameters
        or rejects tables.
    DataError
        ``sql`` does not parse, or names a local file that cannot be read as one.
    """
    import duckdb

    if not isinstance(sql, str):
        raise InvalidParameterError(
            f"sql must be a string (a SELECT query), got a {type(sql).__name__}"
        )
    with shared_cursor() as con:
        try:
            statements = con.extract_statements(sql)
        except duckdb.Error as exc:
            raise DataError(
                f"cannot parse the query: {first_line(exc)}", source=QUERY_NAME
            ) from exc
        if not statements:
            raise InvalidParameterError("sql is empty; pass a SELECT query")
        kinds = [_kind(statement.query, statement.type.name) for statement in statements]
        if len(statements) > 1:
            raise InvalidParameterError(
                f"sql must be one SELECT query; got {len(statements)} statements "
                f"({', '.join(kinds)})"
            )
        statement = statements[0]
        if statement.type != duckdb.StatementType.SELECT:
            raise InvalidParameterError(
                f"sql must be a SELECT query, not {kinds[0]}: dpcount only reads"
            )
        if statement.named_parameters:
            raise InvalidParameterError(
                "sql has parameters "
                f"({', '.join(sorted(map(str, statement.named_parameters)))}); write the values "
                "into the query"
            )
        query = _strip(statement.query)
        tree = con.execute("SELECT json_serialize_sql(?)", [query]).fetchone()
    assert tree is not None
    _check_tree(json.loads(tree[0]))
    return query


def _kind(text: str, type_name: str) -> str:
    """How an error names a statement: its first word (``INSTALL`` is of DuckDB's type
    ``LOAD``), or DuckDB's name for its type when that word is one a SELECT starts with (a
    ``PIVOT`` inside a SELECT is of type ``MULTI``)."""
    words = re.findall(r"[A-Za-z_]+", re.sub(r"--[^\n]*|/\*.*?\*/", " ", text, flags=re.S))
    first = words[0].upper() if words else ""
    if not first or (first in _SELECT_WORDS and type_name != "SELECT"):
        return f"a statement of DuckDB's kind {type_name}"
    return first


def _strip(text: str) -> str:
    """The statement without surrounding blanks and its closing semicolons."""
    text = text.strip()
    while text.endswith(";"):
        text = text[:-1].rstrip()
    return text


def _check_tree(tree: dict[str, Any]) -> None:
    """Refuse rejects tables and local paths that are not regular files (module docstring)."""
    if tree.get("error"):  # a SELECT whose tree DuckDB cannot show cannot be checked
        raise InvalidParameterError(
            f"sql cannot be checked ({tree.get('error_message', 'no parse tree')}); write it as "
            "a plain SELECT"
        )
    for node in _nodes(tree):
        kind = node.get("type")
        if node.get("class") == "FUNCTION":
            name = str(node.get("function_name", "")).lower()
            if name in _REFUSED_FUNCTIONS:
                raise InvalidParameterError(
                    f"sql may not call {name}(): it {_REFUSED_FUNCTIONS[name]}"
                )
        if kind == "TABLE_FUNCTION":
            arguments = node.get("function", {}).get("arguments", [])
            for argument in arguments:
                option = _option_name(argument)
                if option in _TABLE_MAKING_OPTIONS:
                    raise InvalidParameterError(
                        f"sql may not use {option}: it creates tables; read the rejected rows "
                        "in a query of your own"
                    )
            for argument in arguments:
                if _option_name(argument) is None:
                    for literal in _strings(argument.get("expression", {})):
                        _check_path(literal)
        elif kind == "BASE_TABLE":
            name = node.get("table_name", "")
            if not node.get("schema_name") and ("." in name or os.sep in name):
                _check_path(name)  # FROM 'file.csv': DuckDB reads the file


def _nodes(tree: Any) -> Iterator[dict[str, Any]]:
    """Every object of the parse tree, depth first."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def _option_name(argument: dict[str, Any]) -> str | None:
    """``name`` of a table function's ``name = value`` or ``name := value`` argument, else
    None."""
    if argument.get("name"):
        return str(argument["name"]).lower()
    expression = argument.get("expression", {})
    if expression.get("type") != "COMPARE_EQUAL":
        return None
    left = expression.get("left", {})
    names = left.get("column_names", []) if left.get("type") == "COLUMN_REF" else []
    return str(names[0]).lower() if len(names) == 1 else None


def _strings(expression: dict[str, Any]) -> Iterator[str]:
    """The string constants in an expression (a path, or a list of paths)."""
    for node in _nodes(expression):
        literal = node.get("literal") if node.get("class") == "CONSTANT" else None
        if isinstance(literal, dict) and literal.get("kind") == "STRING":
            yield str(literal.get("text", ""))


def _check_path(text: str) -> None:
    """A local path named in the query must not be a named pipe, a device or a socket, nor a
    link loop; a glob's files neither (anything else is left to DuckDB, which words it)."""
    if not text or not is_local(text):
        return
    path = os.path.expanduser(text)
    if GLOB_CHARS & set(path):
        check_glob(path, strict=False)
    else:
        check_not_special(path)
