"""Hypothesis strategies for small person–item graphs and their neighbours.

Neighbouring datasets differ by one person with all their items (add or remove one person).
"""

from __future__ import annotations

from hypothesis import strategies as st

from dpcount import PersonItemGraph


@st.composite
def item_sets(draw, max_persons: int = 7, max_items: int = 8, min_persons: int = 0):
    """``{person label: set of item labels}`` with small integer item labels."""
    n = draw(st.integers(min_persons, max_persons))
    universe = st.integers(0, max_items - 1)
    return {f"p{k}": draw(st.sets(universe, max_size=max_items)) for k in range(n)}


@st.composite
def graphs(draw, max_persons: int = 7, max_items: int = 8, min_persons: int = 0):
    """A small random :class:`PersonItemGraph` (persons without items included)."""
    return PersonItemGraph.from_sets(draw(item_sets(max_persons, max_items, min_persons)))


@st.composite
def neighbours(draw, max_persons: int = 7, max_items: int = 8):
    """``(smaller, larger)``: ``larger`` is ``smaller`` plus one person (with any items).

    The added person's items may be new to the data or already held by others.
    """
    sets = draw(item_sets(max_persons, max_items))
    extra = draw(st.sets(st.integers(0, max_items + 3), max_size=max_items + 4))
    smaller = PersonItemGraph.from_sets(sets)
    return smaller, smaller.with_person("zz-added", sorted(extra))
