"""The witness of DC(D;ℓ): which items each person contributes.

Examples
--------
>>> import numpy as np
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({"ann": {"x", "y"}, "bob": {"y"}})
>>> c = Contributions(graph=g, ell=1, method="flow", owner=np.array([0, 1]))
>>> c
Contributions(ell=1, method='flow', value=2, n_persons=2, n_items=2)
>>> c.to_dict()
{'ann': ['x'], 'bob': ['y']}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcount.errors import DataError
from dpcount.graph import PersonItemGraph

__all__ = ["Contributions"]


@dataclass(frozen=True, repr=False, eq=False)
class Contributions:
    """Which items each person contributes to a count under contribution bound ℓ.

    Attributes
    ----------
    graph
        The graph the witness belongs to.
    ell
        The contribution bound ℓ.
    method
        The method that produced it (``"flow"``, ``"incremental"``, ``"greedy"`` …).
    owner
        int64 array over item ids: the person id that contributes the item, −1 if none does.
        Read-only.

    Notes
    -----
    A valid witness gives each item to at most one person, each person at most ℓ items, and
    only items the person holds; for an exact method the number of contributed items is
    DC(D;ℓ) (Knop & Steinke, Eq. 2).  :meth:`check` verifies the first three.
    """

    graph: PersonItemGraph
    ell: int
    method: str
    owner: np.ndarray

    def __post_init__(self) -> None:
        owner = np.array(self.owner, dtype=np.int64)  # a private, read-only copy
        owner.setflags(write=False)
        object.__setattr__(self, "owner", owner)

    @property
    def value(self) -> int:
        """The number of contributed items (DC(D;ℓ) for an exact method)."""
        return int(np.count_nonzero(self.owner >= 0))

    def loads(self) -> np.ndarray:
        """Number of contributed items per person id.

        Examples
        --------
        >>> from dpcount import PersonItemGraph
        >>> g = PersonItemGraph.from_sets({"a": {1, 2}, "b": {3}})
        >>> Contributions(g, 2, "flow", np.array([0, 0, -1])).loads().tolist()
        [2, 0]
        """
        used = self.owner[self.owner >= 0]
        return np.bincount(used, minlength=self.graph.n_persons).astype(np.int64)

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The contributed (person id, item id) pairs, sorted by item id."""
        items = np.flatnonzero(self.owner >= 0)
        return self.owner[items], items

    def items_of(self, person: int) -> np.ndarray:
        """Item ids contributed by person id ``person`` (ascending)."""
        return np.flatnonzero(self.owner == person)

    def to_dict(self) -> dict[Any, list[Any]]:
        """``{person label: [item labels contributed]}`` for every person, items in label order."""
        persons, items = self.pairs()
        order = np.argsort(persons, kind="stable")
        persons, items = persons[order], items[order]
        bounds = np.searchsorted(persons, np.arange(self.graph.n_persons + 1))
        item_labels = self.graph.item_labels
        return {
            _py(label): [_py(x) for x in item_labels[items[bounds[k] : bounds[k + 1]]]]
            for k, label in enumerate(self.graph.person_labels)
        }

    def check(self) -> None:
        """Raise DataError unless this is a valid witness for ``graph`` and ``ell``.

        Examples
        --------
        >>> from dpcount import PersonItemGraph
        >>> g = PersonItemGraph.from_sets({"a": {1, 2}})
        >>> Contributions(g, 1, "flow", np.array([0, 0])).check()
        Traceback (most recent call last):
        ...
        dpcount.errors.DataError: 1 person(s) contribute more than ell=1 items
        """
        g = self.graph
        if self.owner.shape != (g.n_items,):
            raise DataError(f"owner must have one entry per item ({g.n_items})")
        if np.any((self.owner < -1) | (self.owner >= g.n_persons)):
            raise DataError("owner entries must be person ids or -1")
        persons, items = self.pairs()
        # A pair is an edge iff its code person·m + item is among the graph's pair codes.
        all_persons, all_items = g.pairs()
        edge_codes = all_persons.astype(np.int64) * g.n_items + all_items
        held = np.isin(persons * g.n_items + items, edge_codes)
        if not np.all(held):
            raise DataError(f"{int(np.sum(~held))} contributed item(s) not held by their person")
        over = int(np.count_nonzero(self.loads() > self.ell))
        if over:
            raise DataError(f"{over} person(s) contribute more than ell={self.ell} items")

    def __repr__(self) -> str:
        return (
            f"Contributions(ell={self.ell}, method={self.method!r}, value={self.value}, "
            f"n_persons={self.graph.n_persons}, n_items={self.graph.n_items})"
        )


def _py(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value
