"""The exact DC(D;ℓ) curve by warm-started augmenting paths (docs/algorithms.md §1).

A maximum flow for ℓ stays feasible for ℓ + 1 — only the source capacities grow — so the whole
curve ℓ = 1..ℓ_max needs one sequence of augmentations instead of ℓ_max cold max-flow solves.
The state is an item → person assignment (``owner``, −1 for a free item) and each person's
load.  Phase ℓ starts with every still-useful person at load ℓ − 1 and gives each one more item:

1. the cheap case first: a free item among the person's own items, found by a pointer that only
   moves forward (items are never freed again, only handed from one person to another);
2. while the persons left waiting hold few pairs: one round of depth-first searches for
   augmenting paths person → item owned by w → w → … → a free item, sharing one visit stamp
   (cheap when paths are short).  Along a path each person gives up one item and takes the
   next, so only the starting person's load grows;
3. Hopcroft–Karp phases for whoever is left: a breadth-first layering, then vertex-disjoint
   shortest augmenting paths along the layers, until a layering shows that no augmenting path
   is left.  Each phase searches from the smaller side, as a direction-optimising breadth-first
   search does: forward from the waiting persons, or backward from the free items — item →
   its holders (through the transpose of the graph: built on first use, or, for large graphs,
   before the curve by two threads) → an item the holder owns → its holders … — when the free
   items' holders are fewer than the waiting persons' pairs.  On Reddit-like data at ℓ = 1,
   half the persons wait for a few thousand free items, and the backward search is 3× faster
   over the whole curve.

A person that a search *proves* cannot reach a free item is marked dead for good: a failed
depth-first search while the residual graph is unchanged (step 2, before the round's first
success), every person of a forward layering that reaches no free item, and every person a
backward layering that reaches no waiting person leaves unlabelled.  This is sound because
augmenting along a path never lets a vertex reach the sink again once it cannot (the edges out
of that vertex's closed set stay saturated) and raising source capacities adds no edge it could
use.  Dead persons are neither started from nor passed through.  The curve stops at the first ℓ
where nothing augments — DC(D;ℓ) is concave in ℓ (docs/algorithms.md §1), so it is flat from
there on — when every item is used, and when no person can take another item.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}, "c": {1}})
>>> incremental_curve(g, 4).tolist()
[2, 3, 3, 3]
"""

from __future__ import annotations

import numpy as np

from dpcount.common.jit import kernel
from dpcount.graph import PersonItemGraph
from matching._common import (
    SMALL_GRAPH_PAIRS,
    Solver,
    check_ell,
    effective_ell,
    fill_curve,
)

__all__ = ["incremental_assignment", "incremental_curve", "incremental_value"]


@kernel("(int64, ro(int64[::1]), ro(int32[::1]), int64[::1], int64[::1])", inline=True)
def _has_free_item(
    u: int, indptr: np.ndarray, indices: np.ndarray, owner: np.ndarray, pointer: np.ndarray
) -> bool:
    """Whether person u holds a free item; advances u's forward pointer past owned items."""
    end = indptr[u + 1]
    q = pointer[u]
    while q < end and owner[indices[q]] != -1:
        q += 1
    pointer[u] = q
    return q < end


@kernel("(int64, ro(int32[::1]), int64[::1], int64[::1])", inline=True)
def _take_free_item(u: int, indices: np.ndarray, owner: np.ndarray, pointer: np.ndarray) -> None:
    """u takes the free item at ``pointer[u]`` (found by :func:`_has_free_item`)."""
    owner[indices[pointer[u]]] = u
    pointer[u] += 1


@kernel("(int64, int64[::1], int64[::1], int64[::1])", inline=True)
def _flip_path(
    top: int, owner: np.ndarray, stack_person: np.ndarray, stack_via: np.ndarray
) -> None:
    """Along the augmenting path on the stack each person takes its successor's item."""
    for t in range(top, 0, -1):
        owner[stack_via[t]] = stack_person[t - 1]


@kernel(
    "(int64, int64, int64, int64, ro(int64[::1]), int64[::1], int64[::1], int64[::1])", inline=True
)
def _push(
    top: int,
    s: int,
    w: int,
    j: int,
    indptr: np.ndarray,
    stack_person: np.ndarray,
    stack_scan: np.ndarray,
    stack_via: np.ndarray,
) -> int:
    """Descend from the person on top (to resume at position s) to w, reached via item j."""
    stack_scan[top] = s
    top += 1
    stack_person[top] = w
    stack_scan[top] = indptr[w]
    stack_via[top] = j
    return top


@kernel(
    "(int64, ro(int64[::1]), ro(int32[::1]), int64[::1], int64[::1], boolean[::1], int64[::1],"
    " int64, int64[::1], int64, int64[::1], int64[::1], int64[::1])"
)
def _augment(
    start: int,
    indptr: np.ndarray,
    indices: np.ndarray,
    owner: np.ndarray,
    pointer: np.ndarray,
    dead: np.ndarray,
    stamp: np.ndarray,
    current: int,
    visited: np.ndarray,
    n_visited: int,
    stack_person: np.ndarray,
    stack_scan: np.ndarray,
    stack_via: np.ndarray,
) -> tuple[bool, int]:
    """One augmenting-path search from ``start`` (iterative DFS); flips the path if found.

    Returns whether it augmented and the new number of persons in ``visited``.  Each person
    enters ``visited`` at most once per stamp, so the list never outgrows its n slots.
    """
    if stamp[start] == current:
        return False, n_visited  # already searched from in this round
    stamp[start] = current
    visited[n_visited] = start
    n_visited += 1
    top = 0
    stack_person[0] = start
    stack_scan[0] = indptr[start]
    stack_via[0] = -1
    while top >= 0:
        u = stack_person[top]
        end = indptr[u + 1]
        # A free item of u ends the path.  Items before pointer[u] are owned (never freed).
        if _has_free_item(u, indptr, indices, owner, pointer):
            _take_free_item(u, indices, owner, pointer)
            _flip_path(top, owner, stack_person, stack_via)
            return True, n_visited
        # Otherwise follow an item owned by another live, unvisited person w (w may re-route).
        s = stack_scan[top]
        pushed = False
        while s < end:
            j = indices[s]
            s += 1
            w = owner[j]
            if w != u and not dead[w] and stamp[w] != current:
                stamp[w] = current
                visited[n_visited] = w
                n_visited += 1
                top = _push(top, s, w, j, indptr, stack_person, stack_scan, stack_via)
                pushed = True
                break
        if not pushed:
            stack_scan[top] = s
            top -= 1
    return False, n_visited


@kernel(
    "(int64, int64, boolean[::1], int64[::1], int64, int64[::1], int64[::1], int64)", inline=True
)
def _label(
    u: int,
    layer: int,
    dead: np.ndarray,
    seen: np.ndarray,
    bfs: int,
    dist: np.ndarray,
    queue: np.ndarray,
    tail: int,
) -> int:
    """Put a live person not yet seen in this layering at ``layer`` and on the queue; the new
    queue length (unchanged if u was dead or labelled already)."""
    if dead[u] or seen[u] == bfs:
        return tail
    seen[u] = bfs
    dist[u] = layer
    queue[tail] = u
    return tail + 1


@kernel(
    "(int64[::1], int64, ro(int64[::1]), ro(int32[::1]), int64[::1], int64[::1], boolean[::1],"
    " int64[::1], int64[::1], int64, int64[::1])"
)
def _layers(
    pending: np.ndarray,
    n_pending: int,
    indptr: np.ndarray,
    indices: np.ndarray,
    owner: np.ndarray,
    pointer: np.ndarray,
    dead: np.ndarray,
    dist: np.ndarray,
    seen: np.ndarray,
    bfs: int,
    queue: np.ndarray,
) -> tuple[int, int]:
    """Hopcroft–Karp's breadth-first layering from all pending persons at once.

    ``dist[u]`` (valid where ``seen[u] == bfs``) counts the items handed on along a shortest
    alternating path from a pending person to u.  Returns the distance of the nearest person
    holding a free item (−1 if none is reachable) and the number of persons labelled, which
    are ``queue[:count]``.
    """
    tail = 0
    for b in range(n_pending):
        tail = _label(pending[b], 0, dead, seen, bfs, dist, queue, tail)
    found = -1
    head = 0
    while head < tail:
        u = queue[head]
        head += 1
        k = dist[u]
        if found != -1 and k >= found:
            break  # the layer at distance `found` is complete
        for q in range(indptr[u], indptr[u + 1]):
            w = owner[indices[q]]
            if w == -1 or w == u:
                continue
            labelled = _label(w, k + 1, dead, seen, bfs, dist, queue, tail)
            if labelled > tail:
                tail = labelled
                if found == -1 and _has_free_item(w, indptr, indices, owner, pointer):
                    found = k + 1
    return found, tail


@kernel(
    "(int64, int64, ro(int64[::1]), ro(int32[::1]), int64[::1], int64[::1], boolean[::1],"
    " int64[::1], int64[::1], int64, int64[::1], int64[::1], int64[::1], int64[::1])"
)
def _augment_layered(
    start: int,
    target: int,
    indptr: np.ndarray,
    indices: np.ndarray,
    owner: np.ndarray,
    pointer: np.ndarray,
    dead: np.ndarray,
    dist: np.ndarray,
    seen: np.ndarray,
    bfs: int,
    used: np.ndarray,
    stack_person: np.ndarray,
    stack_scan: np.ndarray,
    stack_via: np.ndarray,
) -> bool:
    """A shortest augmenting path from ``start`` along the layers of a Hopcroft–Karp phase.

    Each step goes to a person one layer further (``dist`` + 1); only persons at ``target`` can
    end a path (they held a free item when layered).  Forward layers (:func:`_layers`) count
    up from the waiting persons at 0, backward ones (:func:`_reverse_layers`) up to 0 from
    below.
    Persons entered in this phase (``used == bfs``) are not entered again, so the paths of one
    phase are vertex-disjoint, as in Hopcroft–Karp.
    """
    used[start] = bfs
    top = 0
    stack_person[0] = start
    stack_scan[0] = indptr[start]
    stack_via[0] = -1
    while top >= 0:
        u = stack_person[top]
        k = dist[u]
        if k == target:
            if _has_free_item(u, indptr, indices, owner, pointer):
                _take_free_item(u, indices, owner, pointer)
                _flip_path(top, owner, stack_person, stack_via)
                return True
            top -= 1  # its free item went to another path of this phase
            continue
        end = indptr[u + 1]
        s = stack_scan[top]
        pushed = False
        while s < end:
            j = indices[s]
            s += 1
            w = owner[j]
            if w < 0 or w == u:
                continue  # (w < 0 cannot happen below the target layer; guard anyway)
            if seen[w] == bfs and dist[w] == k + 1 and used[w] != bfs and not dead[w]:
                used[w] = bfs
                top = _push(top, s, w, j, indptr, stack_person, stack_scan, stack_via)
                pushed = True
                break
        if not pushed:
            stack_scan[top] = s
            top -= 1
    return False


@kernel("(ro(int64[::1]), ro(int32[::1]), int64, int64, int64[::1])")
def _count_holders(
    indptr: np.ndarray, indices: np.ndarray, first: int, stop: int, degree: np.ndarray
) -> None:
    """Add to ``degree[j]`` how many of the persons ``first..stop-1`` hold item j."""
    for q in range(indptr[first], indptr[stop]):
        degree[indices[q]] += 1


@kernel("(ro(int64[::1]), ro(int32[::1]), int64, int64, int64[::1], int32[::1])")
def _place_holders(
    indptr: np.ndarray,
    indices: np.ndarray,
    first: int,
    stop: int,
    cursor: np.ndarray,
    holders: np.ndarray,
) -> None:
    """Write each of the persons ``first..stop-1`` at ``holders[cursor[j]]`` for each item j it
    holds, advancing ``cursor[j]``: the counting sort's second pass over those persons."""
    for p in range(first, stop):
        for q in range(indptr[p], indptr[p + 1]):
            j = indices[q]
            holders[cursor[j]] = p
            cursor[j] += 1


@kernel("(ro(int64[::1]), ro(int32[::1]), ro(int64[::1]), int64[::1], int32[::1])")
def _transpose(
    indptr: np.ndarray,
    indices: np.ndarray,
    item_degree: np.ndarray,
    item_indptr: np.ndarray,
    holders: np.ndarray,
) -> None:
    """Item → holders adjacency, written into ``item_indptr`` (one more entry than items) and
    ``holders`` (one per pair), by a counting sort of the pairs."""
    n_items = item_degree.size
    item_indptr[0] = 0
    for j in range(n_items):
        item_indptr[j + 1] = item_indptr[j] + item_degree[j]
    # item_indptr[j] serves as item j's cursor: it ends at the start of item j + 1 ...
    _place_holders(indptr, indices, 0, indptr.size - 1, item_indptr[:-1], holders)
    for j in range(n_items, 0, -1):  # ... so one shift restores the starts
        item_indptr[j] = item_indptr[j - 1]
    item_indptr[0] = 0


def _transpose_in_halves(
    indptr: np.ndarray, indices: np.ndarray, n_items: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Item degrees and the item → holders adjacency, built by two threads at once.

    Each half of the persons (by pairs) is counted and placed by its own thread; the second
    half's holders of an item follow the first half's, so the result equals :func:`_transpose`.
    Used only for graphs large enough that a second thread repays its start-up.
    """
    from concurrent.futures import ThreadPoolExecutor

    n = indptr.size - 1
    middle = int(np.searchsorted(indptr, indptr[-1] // 2))
    halves = [(0, middle), (middle, n)]
    degrees = [np.zeros(n_items, dtype=np.int64) for _ in halves]
    with ThreadPoolExecutor(max_workers=2) as pool:
        for done in [
            pool.submit(_count_holders.compiled, indptr, indices, first, stop, degree)
            for (first, stop), degree in zip(halves, degrees, strict=True)
        ]:
            done.result()
        item_degree = degrees[0] + degrees[1]
        item_indptr = np.zeros(n_items + 1, dtype=np.int64)
        np.cumsum(item_degree, out=item_indptr[1:])
        cursors = [item_indptr[:-1].copy(), item_indptr[:-1] + degrees[0]]
        holders = np.empty(indices.size, dtype=np.int32)
        for done in [
            pool.submit(_place_holders.compiled, indptr, indices, first, stop, cursor, holders)
            for (first, stop), cursor in zip(halves, cursors, strict=True)
        ]:
            done.result()
    return item_degree, item_indptr, holders


@kernel("(int64, int64, ro(int64[::1]), int64[::1])", inline=True)
def _is_waiting(u: int, ell: int, indptr: np.ndarray, load: np.ndarray) -> bool:
    """Whether u could take one more item in phase ℓ (below ℓ and below its degree)."""
    return load[u] < ell and load[u] < indptr[u + 1] - indptr[u]


@kernel(
    "(int64[::1], int64, int64[::1], int32[::1], int64, ro(int64[::1]), ro(int32[::1]),"
    " int64[::1], int64[::1], boolean[::1], int64[::1], int64[::1], int64, int64[::1])"
)
def _reverse_layers(
    free: np.ndarray,
    n_free: int,
    item_indptr: np.ndarray,
    holders: np.ndarray,
    ell: int,
    indptr: np.ndarray,
    indices: np.ndarray,
    owner: np.ndarray,
    load: np.ndarray,
    dead: np.ndarray,
    dist: np.ndarray,
    seen: np.ndarray,
    bfs: int,
    queue: np.ndarray,
) -> tuple[int, int]:
    """Hopcroft–Karp's layering backwards, from the free items ``free[:n_free]`` at once.

    A holder of a free item could take it (layer 0); a holder of an item owned by a person x
    of layer k could take that item while x moves on (layer k + 1).  ``dist[u]`` (valid where
    ``seen[u] == bfs``) is minus u's layer, so that paths from a waiting person climb to 0 as
    :func:`_augment_layered` expects.  Returns the layer of the nearest waiting person (−1 if
    none is reachable) and the number of persons labelled, ``queue[:count]``.
    """
    tail = 0
    found = -1
    for b in range(n_free):
        f = free[b]
        for r in range(item_indptr[f], item_indptr[f + 1]):
            u = holders[r]
            labelled = _label(u, 0, dead, seen, bfs, dist, queue, tail)
            if labelled > tail:
                tail = labelled
                if found == -1 and _is_waiting(u, ell, indptr, load):
                    found = 0
    head = 0
    while head < tail:
        x = queue[head]
        head += 1
        k = -dist[x]
        if found != -1 and k >= found:
            break  # the layer at distance `found` is complete
        for q in range(indptr[x], indptr[x + 1]):
            j = indices[q]
            if owner[j] != x:
                continue
            for r in range(item_indptr[j], item_indptr[j + 1]):
                u = holders[r]
                labelled = _label(u, -(k + 1), dead, seen, bfs, dist, queue, tail)
                if labelled > tail:
                    tail = labelled
                    if found == -1 and _is_waiting(u, ell, indptr, load):
                        found = k + 1
    return found, tail


@kernel("(int64[::1], int64, int64[::1], int64[::1])", inline=True)
def _compact_free(
    free: np.ndarray, n_free: int, owner: np.ndarray, item_degree: np.ndarray
) -> tuple[int, int]:
    """Drop taken items from ``free[:n_free]``; the number left and how many pairs hold them."""
    kept = 0
    work = 0
    for b in range(n_free):
        f = free[b]
        if owner[f] == -1:
            free[kept] = f
            kept += 1
            work += item_degree[f]
    return kept, work


#: Waiting persons holding more than this share of all pairs skip the depth-first round and
#: let each Hopcroft–Karp phase choose its direction (measured on Reddit-like and Fashion-like
#: data: no slower anywhere, 2–7× faster from 2M pairs on).
LARGE_FRONTIER_SHARE = 4
#: Directions of the Hopcroft–Karp phases: by the sizes of the two sides (the default), or
#: always forward / always backward (the tests compare all three).
AUTO, FORWARD, BACKWARD = 0, 1, 2


#: Rows of the kernel's per-person scratch array (see :func:`_workspace`).
POINTER, VISITED, STACK_PERSON, STACK_SCAN, STACK_VIA, LOAD, DIST, SEEN, USED, ACTIVE, PENDING = (
    range(11)
)
SCRATCH_ROWS = PENDING + 1


@kernel("(ro(int64[::1]), int64, int64, int64)")
def _workspace(
    indptr: np.ndarray, n_items: int, n_pairs: int, ell_max: int
) -> tuple[np.ndarray, ...]:
    """The arrays :func:`_exact_curve` works in: per-person scratch rows, ``dead``, ``owner``
    (all items free), ``sizes``, the free-item list, and room for the item degrees and the
    transpose (filled on first use).

    Callers outside kernels take it :attr:`~dpcount.common.jit.Kernel.interpreted`, so that
    NumPy allocates: compiling ``np.zeros`` and its kin costs about a second on a first run.
    """
    n = indptr.size - 1
    scratch = np.zeros((SCRATCH_ROWS, n), dtype=np.int64)
    for p in range(n):  # (a loop: slice assignment compiles its error formatting)
        scratch[POINTER, p] = indptr[p]
    return (
        scratch,
        np.zeros(n, dtype=np.bool_),
        np.full(n_items, -1, dtype=np.int64),
        np.zeros(ell_max, dtype=np.int64),
        np.empty(n_items, dtype=np.int64),
        np.zeros(n_items, dtype=np.int64),
        np.empty(n_items + 1, dtype=np.int64),
        np.empty(n_pairs, dtype=np.int32),
    )


@kernel("(ro(int64[::1]), ro(int32[::1]), int64, int64)", interpret_below=SMALL_GRAPH_PAIRS)
def _incremental_kernel(
    indptr: np.ndarray, indices: np.ndarray, n_items: int, ell_max: int
) -> tuple[np.ndarray, np.ndarray]:
    """DC(D;ℓ) for ℓ = 1..(stop) and the final maximum-flow assignment item → person."""
    work = _workspace(indptr, n_items, indices.size, ell_max)
    points = _exact_curve(indptr, indices, n_items, ell_max, AUTO, *work, False)
    return work[3][: max(points, 1)], work[2]  # sizes[0] = 0 if nobody holds items


@kernel(
    "(ro(int64[::1]), ro(int32[::1]), int64, int64, int64, int64[:, ::1], boolean[::1],"
    " int64[::1], int64[::1], int64[::1], int64[::1], int64[::1], int32[::1], boolean)",
    interpret_below=SMALL_GRAPH_PAIRS,
)
def _exact_curve(
    indptr: np.ndarray,
    indices: np.ndarray,
    n_items: int,
    ell_max: int,
    directions: int,
    scratch: np.ndarray,
    dead: np.ndarray,
    owner: np.ndarray,
    sizes: np.ndarray,
    free: np.ndarray,
    item_degree: np.ndarray,
    item_indptr: np.ndarray,
    holders: np.ndarray,
    transposed: bool,
) -> int:
    """:func:`_incremental_kernel` in the arrays of :func:`_workspace`, with the phases'
    ``directions`` chosen (AUTO, FORWARD…); returns how many ℓ it ran (``sizes[:that]``).

    The backward phases' item degrees and transpose are built on first use, unless
    ``transposed`` says the last three arrays hold them already.
    """
    n = indptr.size - 1
    pointer, visited = scratch[POINTER], scratch[VISITED]
    stack_person, stack_scan, stack_via = (
        scratch[STACK_PERSON],
        scratch[STACK_SCAN],
        scratch[STACK_VIA],
    )
    load, dist, used = scratch[LOAD], scratch[DIST], scratch[USED]
    seen = scratch[SEEN]  # visit stamp of the current search round or phase
    # The free items left, for backward phases (n_free = -1 until the first one).
    n_free = -1
    have_degree = have_transpose = transposed
    if directions == AUTO:
        large = indices.size // LARGE_FRONTIER_SHARE
    else:  # forward: never large (depth-first rounds); backward: always (no such rounds)
        large = indices.size if directions == FORWARD else -1
    # Persons that may still take one more item; all of them have load ℓ − 1 when phase ℓ starts.
    active = scratch[ACTIVE]
    n_active = 0
    for p in range(n):
        if indptr[p + 1] > indptr[p]:
            active[n_active] = p
            n_active += 1
    pending = scratch[PENDING]
    size = 0
    current = 0
    ell = 0
    while ell < ell_max and n_active > 0:
        ell += 1
        # 1. A free item of the person's own: no search needed (the greedy start).
        n_pending = 0
        frontier = 0  # pairs held by the waiting persons: the forward search's first layer
        for a in range(n_active):
            p = active[a]
            if _has_free_item(p, indptr, indices, owner, pointer):
                _take_free_item(p, indices, owner, pointer)
                load[p] += 1
                size += 1
            else:
                pending[n_pending] = p
                n_pending += 1
                frontier += indptr[p + 1] - indptr[p]
        # 2. One round of depth-first searches sharing a visit stamp: cheap when paths are short.
        if n_pending > 0 and size < n_items and frontier <= large:
            current += 1
            n_visited = 0
            augmented = False
            kept = 0
            frontier = 0
            for b in range(n_pending):
                p = pending[b]
                if dead[p]:
                    continue
                if seen[p] != current and size < n_items:
                    found, n_visited = _augment(
                        p, indptr, indices, owner, pointer, dead, seen, current,
                        visited, n_visited, stack_person, stack_scan, stack_via,
                    )  # fmt: skip
                    if found:
                        load[p] += 1
                        size += 1
                        augmented = True
                        continue
                    if not augmented:
                        # Nothing changed in this round yet, so the failure is a proof: everyone
                        # visited so far cannot reach a free item, now or later.
                        for v in range(n_visited):
                            dead[visited[v]] = True
                        n_visited = 0
                        continue
                pending[kept] = p  # met inside another search, or failed after a change
                kept += 1
                frontier += indptr[p + 1] - indptr[p]
            n_pending = kept
        # 3. Hopcroft–Karp phases for the rest, each from the side with less to search.  A
        #    layering that reaches nothing to augment proves the persons it rules out dead.
        while n_pending > 0 and size < n_items:
            current += 1
            backward = False
            if frontier > large:
                if n_free == -1:
                    if not have_degree:
                        _count_holders(indptr, indices, 0, n, item_degree)
                        have_degree = True
                    for j in range(n_items):
                        free[j] = j
                    n_free = n_items
                n_free, free_holders = _compact_free(free, n_free, owner, item_degree)
                backward = directions == BACKWARD or free_holders < frontier
            if backward:
                if not have_transpose:
                    _transpose(indptr, indices, item_degree, item_indptr, holders)
                    have_transpose = True
                nearest, n_labelled = _reverse_layers(
                    free, n_free, item_indptr, holders, ell, indptr, indices, owner, load, dead,
                    dist, seen, current, visited,
                )  # fmt: skip
                if nearest == -1:  # no waiting person can reach a free item
                    for a in range(n_active):
                        if seen[active[a]] != current:
                            dead[active[a]] = True
                    break
                start, target = -nearest, 0
            else:
                nearest, n_labelled = _layers(
                    pending, n_pending, indptr, indices, owner, pointer, dead, dist, seen,
                    current, visited,
                )  # fmt: skip
                if nearest == -1:  # no labelled person can reach a free item
                    for v in range(n_labelled):
                        dead[visited[v]] = True
                    break
                start, target = 0, nearest
            kept = 0
            frontier = 0
            for b in range(n_pending):
                p = pending[b]
                if dead[p]:
                    continue
                if (
                    seen[p] == current
                    and dist[p] == start
                    and size < n_items
                    and _augment_layered(
                        p, target, indptr, indices, owner, pointer, dead, dist, seen, current,
                        used, stack_person, stack_scan, stack_via,
                    )
                ):  # fmt: skip
                    load[p] += 1
                    size += 1
                else:
                    pending[kept] = p
                    kept += 1
                    frontier += indptr[p + 1] - indptr[p]
            n_pending = kept
        sizes[ell - 1] = size
        kept = 0
        for a in range(n_active):
            p = active[a]
            if not dead[p] and load[p] < indptr[p + 1] - indptr[p]:
                active[kept] = p
                kept += 1
        n_active = kept
        if size == n_items or (ell > 1 and sizes[ell - 1] == sizes[ell - 2]):
            break  # DC(D) reached, or concavity: flat from here on
    return ell


#: From this many pairs on, the backward phases' transpose is built before the curve, by two
#: threads (:func:`_transpose_in_halves`), rather than inside the kernel on first use.
PARALLEL_TRANSPOSE_PAIRS = 1 << 22


def _run(graph: PersonItemGraph, ell_max: int) -> tuple[np.ndarray, np.ndarray]:
    """(sizes, owner) of :func:`_incremental_kernel` for the graph, ℓ up to ``ell_max``."""
    ell_max = effective_ell(graph, ell_max)
    work = _workspace.interpreted(graph.indptr, graph.n_items, graph.n_pairs, ell_max)
    transposed = graph.n_pairs >= PARALLEL_TRANSPOSE_PAIRS
    if transposed:  # large graphs are where backward phases pay
        work = (*work[:5], *_transpose_in_halves(graph.indptr, graph.indices, graph.n_items))
    run = _exact_curve.select(graph.n_pairs)
    points = run(graph.indptr, graph.indices, graph.n_items, ell_max, AUTO, *work, transposed)
    return work[3][: max(points, 1)], work[2]


def incremental_curve(graph: PersonItemGraph, ell_max: int) -> np.ndarray:
    """The exact curve DC(D;ℓ), ℓ = 1..ℓ_max, by warm-started augmenting paths.

    Parameters
    ----------
    graph
        The person–item graph.
    ell_max
        Largest contribution bound.

    Returns
    -------
    numpy.ndarray
        int64 array of length ``ell_max``; entry ℓ−1 is DC(D;ℓ) (Knop & Steinke, Eq. 2).

    Notes
    -----
    Each ℓ costs O(``|D|``) for the pointer step and the depth-first round, plus O(``|D|``) per
    Hopcroft–Karp phase; only the ℓ whose cheap steps leave persons unserved need phases, and
    the ℓ stop at the first flat point.  Persons proven stuck are never searched again.  On
    Reddit-like data the whole curve costs a few passes over the pairs (benchmarks/dc_curve.py).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> incremental_curve(PersonItemGraph.from_sets({"a": {1, 2}, "b": {2, 3}}), 3).tolist()
    [2, 3, 3]
    """
    ell_max = check_ell(ell_max, "ell_max")
    return fill_curve(_run(graph, ell_max)[0], ell_max)


def incremental_value(graph: PersonItemGraph, ell: int) -> int:
    """DC(D;ℓ) for one ℓ (the last point of the incremental curve).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> incremental_value(PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}}), 1)
    2
    """
    return int(_run(graph, check_ell(ell))[0][-1])


def incremental_assignment(graph: PersonItemGraph, ell: int) -> np.ndarray:
    """A maximum assignment for ℓ as an item → person array (−1 for unused items).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> incremental_assignment(PersonItemGraph.from_sets({"a": {1, 2}, "b": {1}}), 1).tolist()
    [1, 0]
    """
    ell = check_ell(ell)
    return _run(graph, ell)[1]


#: This method's entry points for :mod:`matching.dispatch`.
SOLVER = Solver(curve=incremental_curve, value=incremental_value, assignment=incremental_assignment)
