"""Tokenizer and n-grams: from texts written by persons to a person–n-gram graph with counts.

The tokenizer is deliberately simple and fully specified, so that a DuckDB query
(:func:`dpcount.read_texts`, with the SQL twins :func:`tokens_sql` and :func:`ngram_list_sql`
defined here beside the Python code they mirror) and this pure-Python path (:func:`ngram_graph`)
give the same tokens:
lower-case the text with :meth:`str.lower`, then take the maximal runs of ASCII letters and
digits, i.e. the matches of the regular expression ``[a-z0-9]+``.

Unicode handling: lower-casing is Unicode-aware, but only ASCII letters and digits form tokens.
Every other character – accented or non-Latin letters, digits of other scripts, punctuation,
apostrophes, whitespace – separates tokens.  So ``"Café"`` gives ``["caf"]``, ``"don't"`` gives
``["don", "t"]``, Chinese text gives no tokens, and the Kelvin sign ``"K"`` lower-cases to an
ASCII ``"k"``.  Normalise or transliterate texts beforehand if that matters for your data.

Examples
--------
>>> tokenize("Hello, WORLD! 42 times")
['hello', 'world', '42', 'times']
>>> ngrams(["a", "b", "c"], 2)
['a b', 'b c']
>>> g = ngram_graph(["ann", "ann", "bob"], ["Hi there", "hi!", "..."], n=1)
>>> g.item_labels.tolist(), g.counts.tolist(), g.summary().persons_without_items
(['hi', 'there'], [2, 1], 1)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

from dpcount.errors import DataError, InvalidParameterError
from dpcount.graph import PersonItemGraph

__all__ = [
    "NGRAM_SIZES",
    "TOKEN_PATTERN",
    "ngram_graph",
    "ngram_list_sql",
    "ngrams",
    "tokenize",
    "tokens_sql",
]

#: The token pattern, applied after lower-casing (ASCII letters and digits only).
TOKEN_PATTERN = "[a-z0-9]+"

#: The n-gram lengths the readers support.
NGRAM_SIZES = (1, 2, 3)

_TOKEN_RE = re.compile(TOKEN_PATTERN)


def tokenize(text: str) -> list[str]:
    """Split a text into lower-case ASCII alphanumeric tokens.

    Parameters
    ----------
    text
        Any string.

    Returns
    -------
    list of str
        The matches of ``[a-z0-9]+`` in ``text.lower()``, in order (duplicates kept).

    Raises
    ------
    DataError
        If ``text`` is not a string (e.g. ``None``).

    Notes
    -----
    Non-ASCII characters separate tokens; see the module docstring for the exact Unicode
    behaviour.

    Examples
    --------
    >>> tokenize("It's 2 o'clock, Zoë")
    ['it', 's', '2', 'o', 'clock', 'zo']
    >>> tokenize("")
    []
    """
    if not isinstance(text, str):
        raise DataError(f"texts must be strings, got {type(text).__name__}: {text!r}")
    return _TOKEN_RE.findall(text.lower())


def ngrams(tokens: Sequence[str], n: int = 1) -> list[str]:
    """The ``n``-grams of a token sequence as space-joined strings, in order.

    Parameters
    ----------
    tokens
        Tokens of one text (n-grams never span two texts).
    n
        The n-gram length, one of 1, 2, 3.

    Returns
    -------
    list of str
        ``len(tokens) - n + 1`` n-grams (none when the text is shorter than ``n``).

    Examples
    --------
    >>> ngrams(["to", "be", "or", "not"], 3)
    ['to be or', 'be or not']
    >>> ngrams(["alone"], 2)
    []
    """
    n = _check_n(n)
    return [" ".join(tokens[k : k + n]) for k in range(len(tokens) - n + 1)]


def ngram_graph(persons: Iterable[Hashable], texts: Iterable[str], n: int = 1) -> PersonItemGraph:
    """Person–n-gram graph with counts from in-memory rows ``(person, text)``.

    A person may have several texts.  The count of a pair is how many times the person used the
    n-gram over all their texts.  Persons whose texts yield no n-gram stay in the graph as
    persons without items (they are part of the data for the neighbouring relation).

    Parameters
    ----------
    persons
        Person label of each text.
    texts
        The texts, tokenized with :func:`tokenize`.
    n
        The n-gram length, one of 1, 2, 3.

    Returns
    -------
    PersonItemGraph
        Items are n-grams (space-joined strings, sorted); ``counts`` holds the usage counts.

    Raises
    ------
    DataError
        On a length mismatch, a text that is not a string, or null/mixed-type person labels.
    InvalidParameterError
        If ``n`` is not 1, 2 or 3.

    See Also
    --------
    dpcount.read_texts : the same graph from a file or a SQL query, computed by DuckDB.

    Examples
    --------
    >>> g = ngram_graph(["a", "b", "a"], ["the cat sat", "The cat", "a cat"], n=2)
    >>> g.item_labels.tolist()
    ['a cat', 'cat sat', 'the cat']
    >>> g.biadjacency(counts=True).toarray().tolist()
    [[1, 1, 1], [0, 0, 1]]
    """
    n = _check_n(n)
    person_list = list(persons)
    text_list = list(texts)
    if len(person_list) != len(text_list):
        raise DataError(
            f"persons and texts differ in length: {len(person_list)} vs {len(text_list)}"
        )
    usage: Counter[tuple[Any, str]] = Counter()
    for person, text in zip(person_list, text_list, strict=True):
        usage.update((person, gram) for gram in ngrams(tokenize(text), n))
    pair_persons = [person for person, _ in usage]
    pair_items = [gram for _, gram in usage]
    return PersonItemGraph.from_pairs(
        pair_persons,
        pair_items,
        counts=list(usage.values()),
        persons_without_items=person_list,
    )


def tokens_sql(column: str) -> str:
    """DuckDB twin of :func:`tokenize`: the token list of the string column ``column``.

    Python lower-cases ``"İ"`` (U+0130) to ``"i"`` plus a combining dot, which then separates
    tokens; DuckDB lower-cases it to a bare ``"i"``.  It is the only code point where the two
    disagree (checked over all of Unicode in the tests), so it is mapped explicitly.

    Examples
    --------
    >>> import duckdb
    >>> duckdb.sql(f"SELECT {tokens_sql('t')} FROM (VALUES ('Hi, İz!')) v(t)").fetchall()
    [(['hi', 'i', 'z'],)]
    >>> tokenize("Hi, İz!")
    ['hi', 'i', 'z']
    """
    return f"regexp_extract_all(lower(replace({column}, 'İ', 'i ')), '{TOKEN_PATTERN}')"


def ngram_list_sql(tokens: str, n: int) -> str:
    """DuckDB twin of :func:`ngrams`: the ``n``-grams (space-joined) of the token-list column
    ``tokens``.

    Examples
    --------
    >>> import duckdb
    >>> query = f"SELECT {ngram_list_sql('w', 2)} FROM (VALUES (['a', 'b', 'c'])) v(w)"
    >>> duckdb.sql(query).fetchall()
    [(['a b', 'b c'],)]
    """
    if n == 1:
        return tokens
    # k = 1 .. len - n + 1 (range's end is exclusive); slices are 1-based and inclusive.
    return (
        f"list_transform(range(1, len({tokens}) - {n - 2}), "
        f"lambda k: array_to_string({tokens}[k:k + {n - 1}], ' '))"
    )


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or n not in NGRAM_SIZES:
        raise InvalidParameterError(f"n-gram length must be one of {NGRAM_SIZES}, got {n!r}")
    return int(n)
