"""DC(D;ℓ) as a maximum bipartite matching with min(ℓ, degree) copies of each person.

Knop & Steinke §1.1 (footnote 3): copy person i min(ℓ, ``|u_i|``) times; a maximum matching of the
copies to items has size DC(D;ℓ).  Solved by SciPy's Hopcroft–Karp
(``scipy.sparse.csgraph.maximum_bipartite_matching``).  The copied graph holds
Σ_i min(ℓ, ``|u_i|``)·``|u_i|`` edges — memory and time grow with ℓ, which is why this is the
slowest exact method on large data (docs/algorithms.md §1).

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}, "c": {1}})
>>> [hopcroft_karp_value(g, ell) for ell in (1, 2)]
[2, 3]
"""

from __future__ import annotations

import numpy as np
import scipy.sparse
from scipy.sparse.csgraph import maximum_bipartite_matching

from dpcount.graph import PersonItemGraph
from matching._common import Solver, check_ell, curve_from_values

__all__ = [
    "copies_graph",
    "hopcroft_karp_assignment",
    "hopcroft_karp_curve",
    "hopcroft_karp_value",
]


def copies_graph(graph: PersonItemGraph, ell: int) -> tuple[scipy.sparse.csr_array, np.ndarray]:
    """The biadjacency matrix with min(ℓ, degree) rows per person, and each row's person id.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> m, rows = copies_graph(PersonItemGraph.from_sets({"a": {1, 2}, "b": {2}}), 2)
    >>> m.toarray().tolist(), rows.tolist()
    ([[1, 1], [1, 1], [0, 1]], [0, 0, 1])
    """
    ell = check_ell(ell)
    degrees = graph.degrees()
    row_person = np.repeat(np.arange(graph.n_persons, dtype=np.int64), np.minimum(degrees, ell))
    lengths = degrees[row_person]
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    # Position of each new entry in the original CSR: its row's start there plus its offset.
    offsets = np.arange(indptr[-1], dtype=np.int64) - np.repeat(indptr[:-1], lengths)
    source = np.repeat(graph.indptr[row_person], lengths) + offsets
    matrix = scipy.sparse.csr_array(
        (np.ones(indptr[-1], dtype=np.int8), graph.indices[source], indptr),
        shape=(row_person.size, graph.n_items),
    )
    return matrix, row_person


def hopcroft_karp_value(graph: PersonItemGraph, ell: int) -> int:
    """DC(D;ℓ) by one Hopcroft–Karp matching on the copies graph (Knop & Steinke, Alg. 1).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> hopcroft_karp_value(PersonItemGraph.from_sets({"a": {1, 2}, "b": {2}}), 1)
    2
    """
    matrix, _ = copies_graph(graph, ell)
    if matrix.nnz == 0:
        return 0
    return int(np.count_nonzero(maximum_bipartite_matching(matrix, perm_type="column") >= 0))


def hopcroft_karp_curve(graph: PersonItemGraph, ell_max: int) -> np.ndarray:
    """DC(D;ℓ) for ℓ = 1..ℓ_max, one cold matching per ℓ until the curve is flat.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> hopcroft_karp_curve(PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}}), 3).tolist()
    [2, 3, 3]
    """
    ell_max = check_ell(ell_max, "ell_max")
    return curve_from_values(lambda ell: hopcroft_karp_value(graph, ell), graph, ell_max)


def hopcroft_karp_assignment(graph: PersonItemGraph, ell: int) -> np.ndarray:
    """A maximum matching for ℓ as an item → person array (−1 for unmatched items).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> hopcroft_karp_assignment(PersonItemGraph.from_sets({"a": {1, 2}, "b": {2}}), 1).tolist()
    [0, 1]
    """
    matrix, row_person = copies_graph(graph, ell)
    owner = np.full(graph.n_items, -1, dtype=np.int64)
    if matrix.nnz == 0:
        return owner
    row_of_item = maximum_bipartite_matching(matrix, perm_type="row")
    matched = row_of_item >= 0
    owner[matched] = row_person[row_of_item[matched]]
    return owner


#: This method's entry points for :mod:`matching.dispatch`.
SOLVER = Solver(
    curve=hopcroft_karp_curve, value=hopcroft_karp_value, assignment=hopcroft_karp_assignment
)
