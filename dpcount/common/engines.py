"""Handles to private data that another engine holds (Spark …), as the mechanisms see them.

A mechanism is written once for data in this process (a :class:`dpcount.PersonItemGraph`);
data that lives in another engine is passed to the same function as a small handle, a subclass
of :class:`EngineData` that names its engine (:class:`dpcount.spark.SparkPairs` for Spark).
The mechanism's declaration says which engines run it, and that engine's adapter in
``mechanisms`` runs it there (PipelineDP's pattern: the same call, another backend).

Examples
--------
>>> class Toy(EngineData):
...     engine = "toy"
...     def check(self) -> dict[str, bool]:
...         return {}
>>> Toy().engine, isinstance(Toy(), EngineData)
('toy', True)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import ClassVar

__all__ = ["EngineData"]


class EngineData(ABC):
    """Private person–item data held by an engine other than this process.

    Attributes
    ----------
    engine
        The engine's name, as mechanisms declare it (``engines=("local", "spark")``).
    """

    engine: ClassVar[str]

    @abstractmethod
    def check(self) -> Mapping[str, bool]:
        """Run every check on the data that a release could fail (nulls, no rows …), raising
        the reader's one-line errors, and return what the data allow, decided once (e.g.
        ``{"fits_driver": True}``).  A session calls it when it is created, so that no release
        fails on the data after its charge."""
