"""The reading room: person–item data from files, SQL and tables in memory, into graphs.

Public readers and writer:

* :func:`read_pairs` (:mod:`dpcount.io.pairs`) — (person, item[, count]) rows into a
  :class:`~dpcount.graph.PersonItemGraph`;
* :func:`read_triples` (:mod:`dpcount.io.triples`) — (person, group, item) rows into a
  :class:`~dpcount.graph.GroupedGraph`;
* :func:`read_texts` (:mod:`dpcount.io.texts`) — texts into person–n-gram graphs, tokenized as
  :func:`tokenize` does (:mod:`dpcount.io.tokens`, with :func:`ngrams` and :func:`ngram_graph`
  for texts in memory);
* :func:`write_pairs` (:mod:`dpcount.io.write`) — a graph's pairs to CSV or Parquet.

The readers share one source path (:mod:`dpcount.io._columns`): sources
(:mod:`~dpcount.io._sources`, :mod:`~dpcount.io._frames`), DuckDB connections and the read's
workspace (:mod:`~dpcount.io._connections`, :mod:`~dpcount.io._workspace`), row checks
(:mod:`~dpcount.io._checks`) and error wording (:mod:`~dpcount.io._errors`).  Pairs then take
the fastest path that reads them exactly (:mod:`~dpcount.io._strategy`: integer keys, Arrow's
Parquet reader, DuckDB's stream; :mod:`~dpcount.io._encode`, :mod:`~dpcount.io._intern`,
:mod:`~dpcount.io._parquet`, :mod:`~dpcount.io._int_keys`); texts and triples are encoded
inside DuckDB (:mod:`~dpcount.io._sql_encoding`).  Every threshold between those paths is an
attribute of :data:`dpcount.common.tuning.TUNING`.

Examples
--------
>>> from dpcount.io import read_pairs
>>> read_pairs(sql="SELECT * FROM (VALUES (1, 'x'), (2, 'x')) t(person, item)").n_items
1
"""

from __future__ import annotations

from dpcount.errors import DroppedRowsWarning
from dpcount.io._frames import frame_kind as table_kind
from dpcount.io._sources import FORMATS
from dpcount.io.pairs import read_pairs
from dpcount.io.texts import read_texts
from dpcount.io.tokens import NGRAM_SIZES, TOKEN_PATTERN, ngram_graph, ngrams, tokenize
from dpcount.io.triples import read_triples
from dpcount.io.write import write_pairs

__all__ = [
    "FORMATS",
    "NGRAM_SIZES",
    "TOKEN_PATTERN",
    "DroppedRowsWarning",
    "ngram_graph",
    "ngrams",
    "read_pairs",
    "read_texts",
    "read_triples",
    "table_kind",
    "tokenize",
    "write_pairs",
]
