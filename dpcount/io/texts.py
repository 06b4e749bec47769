"""Reading texts written by persons into a person–n-gram graph with usage counts, via DuckDB.

The source opens by the path every reader shares (:mod:`dpcount.io._columns`); tokenizing and
counting n-grams run inside DuckDB with the SQL twins of the tokenizer
(:mod:`dpcount.io.tokens`), and the counted pairs are dictionary-encoded there too
(:mod:`dpcount.io._sql_encoding`).

Examples
--------
>>> g = read_texts(sql="SELECT * FROM (VALUES ('ann', 'Hi there, hi!')) t(person, text)")
>>> g.item_labels.tolist(), g.counts.tolist()
(['hi', 'there'], [2, 1])
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from dpcount.errors import InvalidParameterError
from dpcount.graph import PersonItemGraph
from dpcount.io._checks import check_text_type, valid_rows
from dpcount.io._columns import FileOptions, open_source
from dpcount.io._sql import quote_ident
from dpcount.io._sql_encoding import encode_pairs
from dpcount.io.tokens import NGRAM_SIZES, ngram_list_sql, tokens_sql

if TYPE_CHECKING:
    import duckdb

__all__ = ["read_texts"]


def read_texts(
    source: str | os.PathLike[str] | None = None,
    person: str = "person",
    text: str = "text",
    ngram: int = 1,
    *,
    sql: str | None = None,
    connection: duckdb.DuckDBPyConnection | None = None,
    format: str | None = None,
    drop_nulls: bool = False,
    delimiter: str | None = None,
    header: bool = True,
    encoding: str = "utf-8",
    column_types: Mapping[str, str] | None = None,
) -> PersonItemGraph:
    """Read texts written by persons into a person–n-gram graph with usage counts.

    Tokenization (:func:`dpcount.tokenize`: lower-case, ASCII ``[a-z0-9]+`` tokens) and
    n-gram counting run inside DuckDB; the result equals
    ``dpcount.ngram_graph(persons, texts, n=ngram)`` on the same rows.

    Parameters
    ----------
    source, sql, connection, format, drop_nulls, delimiter, header, encoding, column_types
        As in :func:`dpcount.read_pairs`; ``drop_nulls`` concerns person ids only.  A null or empty
        text has no tokens (CSV files cannot tell the two apart).
    person
        Column with the person id.
    text
        Column with the text (a string type).  A person may have many rows.
    ngram
        n-gram length: 1, 2 or 3.  n-grams never span two rows.

    Returns
    -------
    PersonItemGraph
        Items are the n-grams as space-joined strings; ``counts`` says how many times the person
        used each.  Persons whose texts yield no n-gram are persons without items.

    Raises
    ------
    DataError, InvalidParameterError
        As in :func:`dpcount.read_pairs`; also when the text column is not a string column.

    Examples
    --------
    >>> query = "SELECT * FROM (VALUES (1, 'To be, or not to be'), (2, '')) t(person, text)"
    >>> g = read_texts(sql=query, ngram=2)
    >>> g.item_labels.tolist(), g.counts.tolist(), g.n_persons
    (['be or', 'not to', 'or not', 'to be'], [1, 1, 1, 2], 2)
    """
    if isinstance(ngram, bool) or ngram not in NGRAM_SIZES:
        raise InvalidParameterError(f"ngram must be one of {NGRAM_SIZES}, got {ngram!r}")
    options = FileOptions(format, delimiter, header, encoding, column_types)
    with open_source(source, sql, connection, options, {"person": person}, {"text": text}) as s:
        check_text_type(text, s.types[text], s.source.name)
        projection = s.projection | {"t": quote_ident(text)}
        valid = valid_rows(s.work, projection, s.invalid, drop_nulls)  # a null text: no text
        tokens = f"SELECT p, {tokens_sql('t')} AS w FROM {valid}"
        grams = f"SELECT p, unnest({ngram_list_sql('w', int(ngram))}) AS i FROM ({tokens})"
        pairs = s.work.table(
            "pairs", f"SELECT p, i, count(*)::BIGINT AS c FROM ({grams}) GROUP BY p, i"
        )
        person_type = s.types[person]
        return encode_pairs(
            s.work,
            valid,
            pairs,
            with_counts=True,
            types=(person_type, "VARCHAR"),
            names=(person, "n-grams"),
        )
