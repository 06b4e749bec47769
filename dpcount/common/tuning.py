"""The row and batch thresholds of the reader and the graph assembly, in one object.

Every size at which the reader or the graph assembly switches strategy, and every size of the
batches and blocks they work in, is an attribute of :data:`TUNING`.  None of them changes a
result: each strategy builds the same graph, and the tests check that by setting these
thresholds very low (so that a small input takes the paths of a large one) with
:meth:`Tuning.overridden`.  The defaults were chosen from the measurements recorded in
``benchmarks/results/end_to_end.md``; change them only with a benchmark run beside.

Examples
--------
>>> TUNING.rows_per_group
1048576
>>> with TUNING.overridden(rows_per_group=4):
...     print(TUNING.rows_per_group)
4
>>> TUNING.rows_per_group
1048576
>>> TUNING.overridden(rows_per_grup=4)
Traceback (most recent call last):
...
AttributeError: no threshold 'rows_per_grup'; the thresholds are compiled_min_pairs, ...
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, fields
from typing import Any

__all__ = ["TUNING", "Tuning"]


@dataclass(slots=True)
class Tuning:
    """Thresholds of the reader (:mod:`dpcount.io`) and the graph assembly (:mod:`dpcount.graph`).

    Attributes
    ----------
    compiled_min_pairs
        From this many pairs on (without counts), CSR is built by the compiled passes of
        :mod:`dpcount.graph.csr_kernels`; below, by NumPy alone (compiling or loading the
        kernels would cost more than it saves).
    int_keys_min_rows
        From this many rows on, integer ids from narrow ranges make their pair keys from the
        values (:mod:`dpcount.io._int_keys`), which compiles kernels too.
    key_block
        Pair keys are scanned in blocks of this many (bounds the temporaries).
    parallel_flag_pairs
        From this many pairs on, the items held are flagged in two threads.
    rows_per_group
        Rows dictionary-encoded together: one dictionary per group of this many rows.
    intern_min_rows, intern_share
        A group of strings of at least ``intern_min_rows`` rows whose dictionary has more than
        ``intern_share`` entries per row makes its column interned from then on
        (:mod:`dpcount.io._intern`).
    max_string_bytes
        The most bytes one Arrow string array holds (32-bit offsets); lowered only by tests, to
        reach the widening of larger dictionaries with small data.
    duckdb_batch_rows
        Rows per Arrow batch fetched from DuckDB.
    parquet_batch_rows
        Rows per batch of a Parquet file read by Arrow.
    parquet_plain_entries_per_row
        A Parquet column whose first row group has more dictionary entries per row than this
        is read plainly rather than as dictionaries.
    int_keys_batch_rows
        Rows per batch when integer columns of a table in memory are keyed from their values.
    int_keys_batches_in_flight
        Batches of integer ids that may be keyed while the next ones are read.
    """

    compiled_min_pairs: int = 1 << 21
    int_keys_min_rows: int = 1 << 21
    key_block: int = 1 << 20
    parallel_flag_pairs: int = 1 << 22
    rows_per_group: int = 1 << 20
    intern_min_rows: int = 1 << 19
    intern_share: float = 0.5
    max_string_bytes: int = 2**31 - 1
    duckdb_batch_rows: int = 1 << 20
    parquet_batch_rows: int = 1 << 17
    parquet_plain_entries_per_row: float = 0.2
    int_keys_batch_rows: int = 1 << 17
    int_keys_batches_in_flight: int = 4

    def overridden(self, **changes: Any) -> AbstractContextManager[Tuning]:
        """Set some thresholds while the block runs, then restore them (for tests); an unknown
        name is refused at once."""
        names = [f.name for f in fields(self)]
        unknown = [name for name in changes if name not in names]
        if unknown:
            raise AttributeError(
                f"no threshold {unknown[0]!r}; the thresholds are {', '.join(names)}"
            )
        return self._set_while(changes)

    @contextmanager
    def _set_while(self, changes: dict[str, Any]) -> Iterator[Tuning]:
        before = {name: getattr(self, name) for name in changes}
        for name, value in changes.items():
            setattr(self, name, value)
        try:
            yield self
        finally:
            for name, value in before.items():
                setattr(self, name, value)


#: The thresholds in use; read at each call, so that tests may change them.
TUNING = Tuning()
