"""Exceptions and warnings shared by every dpcount package.

Every error dpcount raises on purpose derives from :class:`DPCountError`, so callers can catch the
library's errors without catching programming errors; every warning it gives derives from
:class:`DPCountWarning`.  The two ``ValueError`` subclasses keep
``except ValueError`` working for code that does not know about dpcount.

A message that names a parameter – one to pass (``pass drop_nulls=True``) or the one at fault
(``delimiter applies to CSV files only``) – holds it as an :class:`Option` between its pieces of
text, not as text.  ``str(error)`` spells it as a Python keyword; a front end that has other
names for the parameters spells it its own way with :meth:`DPCountError.render` (the command
line names its flags, ``--drop-nulls``), without parsing the message.

Examples
--------
>>> from dpcount.errors import DataError, InvalidParameterError, Option
>>> issubclass(InvalidParameterError, ValueError)
True
>>> str(DataError("null person id", source="a.csv", line=3))
'a.csv, line 3: null person id'
>>> e = DataError("2 null ids; pass ", Option("drop_nulls", True), " to skip them", source="a.csv")
>>> str(e)
'a.csv: 2 null ids; pass drop_nulls=True to skip them'
>>> e.render(lambda option: "--" + option.keyword.replace("_", "-"))
'a.csv: 2 null ids; pass --drop-nulls to skip them'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BudgetExceededError",
    "DPCountError",
    "DPCountWarning",
    "DataError",
    "DroppedRowsWarning",
    "InvalidParameterError",
    "LargeDeltaWarning",
    "Option",
    "PrivacyLeakWarning",
    "ReleaseFailedError",
    "UnsafeNoiseWarning",
]


@dataclass(frozen=True, init=False)
class Option:
    """A parameter named in an error message: its Python keyword and the values suggested.

    Parameters
    ----------
    keyword
        The keyword argument, e.g. ``"drop_nulls"``.
    *values
        The values to suggest, if any: ``Option("encoding", "latin-1", "utf-16")``.  Without
        values the option itself is named (the one at fault, or one to look at).

    Examples
    --------
    >>> Option("drop_nulls", True).python(), Option("delimiter").python()
    ('drop_nulls=True', 'delimiter')
    >>> Option("encoding", "latin-1", "utf-16").python()
    "encoding='latin-1' or encoding='utf-16'"
    >>> Option("format", "csv", "tsv", "parquet").python()
    "format= one of 'csv', 'tsv', 'parquet'"
    """

    keyword: str
    values: tuple[Any, ...]

    def __init__(self, keyword: str, *values: Any):
        object.__setattr__(self, "keyword", keyword)
        object.__setattr__(self, "values", values)

    def python(self) -> str:
        """The option as a Python caller writes it."""
        if not self.values:
            return self.keyword
        if len(self.values) == 2:
            return " or ".join(f"{self.keyword}={value!r}" for value in self.values)
        if len(self.values) == 1:
            return f"{self.keyword}={self.values[0]!r}"
        return f"{self.keyword}= one of {', '.join(map(repr, self.values))}"


class DPCountError(Exception):
    """Base class of every error raised deliberately by dpcount.

    Parameters
    ----------
    *parts
        The message: text and :class:`Option` pieces, joined in order.
    """

    def __init__(self, *parts: str | Option):
        self.parts = parts
        super().__init__(self.render(Option.python))

    @property
    def options(self) -> tuple[Option, ...]:
        """The parameters the message names, in order."""
        return tuple(part for part in self.parts if isinstance(part, Option))

    def render(self, spell: Callable[[Option], str]) -> str:
        """The message with each :class:`Option` written by ``spell`` (``str(error)`` uses
        :meth:`Option.python`)."""
        text = "".join(spell(p) if isinstance(p, Option) else str(p) for p in self.parts)
        return self._where() + text

    def _where(self) -> str:
        """Text before the message (the file and line of a :class:`DataError`)."""
        return ""


class InvalidParameterError(DPCountError, ValueError):
    """A parameter is outside its valid range (ε ≤ 0, β ∉ (0, ½), ℓ_max < 1, unknown method …)."""


class DataError(DPCountError, ValueError):
    """The input data is unusable: missing column, null or empty ids, empty or malformed file.

    Parameters
    ----------
    *parts
        What is wrong and what to do about it: text and :class:`Option` pieces.
    source
        The file (or query) the data came from, when there is one.
    line
        The 1-based line of ``source`` where the problem is, when known.
    """

    def __init__(self, *parts: str | Option, source: str | None = None, line: int | None = None):
        self.source = source
        self.line = line
        super().__init__(*parts)

    @property
    def message(self) -> str:
        """The message without the file and line."""
        return "".join(p.python() if isinstance(p, Option) else str(p) for p in self.parts)

    def _where(self) -> str:
        if self.source is None:
            return ""
        where = self.source if self.line is None else f"{self.source}, line {self.line}"
        return f"{where}: "


class BudgetExceededError(DPCountError):
    """A release would spend more privacy budget than a :class:`PrivacyAccountant` holds."""


class ReleaseFailedError(DPCountError):
    """A release failed after its budget was charged; the cause is withheld.

    Raised by a :class:`mechanisms.Session`: the cause of a failure on the data may depend on
    the data, so the message names only the release and its cost (the same on any data).
    """


class DPCountWarning(UserWarning):
    """Base class of the warnings dpcount gives (the command line prints each as a note)."""


class UnsafeNoiseWarning(DPCountWarning):
    """Floating-point noise was used; the result is for experiments, not for release."""


class PrivacyLeakWarning(DPCountWarning):
    """A parameter was taken from the data, so the output is not differentially private."""


class DroppedRowsWarning(DPCountWarning):
    """Rows with null or empty ids were dropped because ``drop_nulls=True`` was passed."""


class LargeDeltaWarning(DPCountWarning):
    """δ is above the public bound of :func:`dpcount.validation.check_release_delta`.

    (ε, δ)-DP allows anything with probability δ; δ should be far below 1/n for n persons.
    """
