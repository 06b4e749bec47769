"""Exceptions and warnings shared by every dpcount package.

Every error dpcount raises on purpose derives from :class:`DPCountError`, so callers can catch the
library's errors without catching programming errors.  The two ``ValueError`` subclasses keep
``except ValueError`` working for code that does not know about dpcount.

Examples
--------
>>> from dpcount.errors import DataError, InvalidParameterError
>>> issubclass(InvalidParameterError, ValueError)
True
>>> str(DataError("null person id", source="a.csv", line=3))
'a.csv, line 3: null person id'
"""

from __future__ import annotations

__all__ = [
    "BudgetExceededError",
    "DPCountError",
    "DataError",
    "DroppedRowsWarning",
    "InvalidParameterError",
    "PrivacyLeakWarning",
    "ReleaseFailedError",
    "UnsafeNoiseWarning",
]


class DPCountError(Exception):
    """Base class of every error raised deliberately by dpcount."""


class InvalidParameterError(DPCountError, ValueError):
    """A parameter is outside its valid range (ε ≤ 0, β ∉ (0, ½), ℓ_max < 1, unknown method …)."""


class DataError(DPCountError, ValueError):
    """The input data is unusable: missing column, null or empty ids, empty or malformed file.

    Parameters
    ----------
    message
        What is wrong and what to do about it.
    source
        The file (or query) the data came from, when there is one.
    line
        The 1-based line of ``source`` where the problem is, when known.
    """

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None):
        self.message = message
        self.source = source
        self.line = line
        super().__init__(self._format())

    def _format(self) -> str:
        if self.source is None:
            return self.message
        where = self.source if self.line is None else f"{self.source}, line {self.line}"
        return f"{where}: {self.message}"


class BudgetExceededError(DPCountError):
    """A release would spend more privacy budget than a :class:`PrivacyAccountant` holds."""


class ReleaseFailedError(DPCountError):
    """A release failed after its budget was charged; the cause is withheld.

    Raised by a :class:`mechanisms.Session`: the cause of a failure on the data may depend on
    the data, so the message names only the release and its cost (the same on any data).
    """


class UnsafeNoiseWarning(UserWarning):
    """Floating-point noise was used; the result is for experiments, not for release."""


class PrivacyLeakWarning(UserWarning):
    """A parameter was taken from the data, so the output is not differentially private."""


class DroppedRowsWarning(UserWarning):
    """Rows with null or empty ids were dropped because ``drop_nulls=True`` was passed."""
