"""Inputs of the n-gram mechanisms: the public vocabulary and the private per-person counts.

The public data fixes the vocabulary 𝒱 (Ramadan et al. §2.1, §4.1: "the vocabulary … is
determined only by the public dataset").  Private n-grams outside 𝒱 are dropped before anything
else happens; n-grams of 𝒱 that no person used get private count 0.  Both steps look at one
person's own n-grams only, so they do not change the neighbouring relation.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> vocab = public_vocabulary({"b": 3, "a": 1})
>>> vocab.labels.tolist(), vocab.counts.tolist()
(['a', 'b'], [1.0, 3.0])
>>> g = PersonItemGraph.from_pairs(["u", "u", "v"], ["a", "zz", "b"], counts=[5, 2, 1])
>>> pc = private_counts(g, vocab)
>>> pc.person.tolist(), pc.word.tolist(), pc.count.tolist()
([0, 1], [0, 1], [5.0, 1.0])
>>> clamp(pc, 2).count.tolist()
[2.0, 1.0]
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from dpcount.errors import DataError
from dpcount.graph import PersonItemGraph
from dpcount.validation import check_graph

__all__ = [
    "PrivateCounts",
    "PublicCounts",
    "Vocabulary",
    "clamp",
    "private_counts",
    "public_vocabulary",
    "restrict_persons",
    "word_totals",
]

#: ``{n-gram: count}`` or a pair ``(labels, counts)`` of equal-length sequences.
PublicCounts: TypeAlias = Mapping[Hashable, float] | tuple[Any, npt.ArrayLike]


@dataclass(frozen=True)
class Vocabulary:
    """The public vocabulary 𝒱 in sorted label order and its public counts α (≥ 0)."""

    labels: np.ndarray
    counts: np.ndarray

    @property
    def size(self) -> int:
        return int(self.labels.size)


@dataclass(frozen=True)
class PrivateCounts:
    """Per-person counts Δcⁿ over 𝒱, one entry per (person, in-vocabulary n-gram) pair.

    ``person`` holds person ids of the graph (every person of the graph counts for the
    neighbouring relation, also those without in-vocabulary n-grams); ``word`` indexes
    :class:`Vocabulary`; ``count`` is a float copy of the (possibly clamped) count.
    """

    person: np.ndarray
    word: np.ndarray
    count: np.ndarray
    n_persons: int
    n_words: int


def _label_kind(values: np.ndarray) -> str:
    """``"str"``, ``"bytes"``, ``"number"`` or a type name; used to detect label mismatches."""
    kind = values.dtype.kind
    if kind == "U":
        return "str"
    if kind == "S":
        return "bytes"
    if kind in "biuf":
        return "number"
    kinds = set()
    for value in values:
        if isinstance(value, str):
            kinds.add("str")
        elif isinstance(value, bytes):
            kinds.add("bytes")
        elif isinstance(value, numbers.Number):
            kinds.add("number")
        else:
            kinds.add(type(value).__name__)
    if len(kinds) > 1:
        raise DataError(f"n-gram labels mix types {sorted(kinds)}; use one label type")
    return kinds.pop() if kinds else "empty"


def _label_array(labels: Sequence[Hashable] | np.ndarray) -> np.ndarray:
    """Labels as a 1-D array without silently turning numbers into strings."""
    if isinstance(labels, np.ndarray):
        arr = labels
    else:
        seq = list(labels)
        if seq and all(isinstance(x, str) for x in seq):
            arr = np.array(seq, dtype=str)
        elif seq and all(isinstance(x, int | np.integer) for x in seq):
            arr = np.array(seq, dtype=np.int64)
        else:
            arr = np.empty(len(seq), dtype=object)
            arr[:] = seq
    if arr.ndim != 1:
        raise DataError(f"public n-gram labels must be one-dimensional, got shape {arr.shape}")
    return arr


def public_vocabulary(public_counts: PublicCounts) -> Vocabulary:
    """Check and sort the public counts α; their labels are the vocabulary 𝒱.

    Parameters
    ----------
    public_counts
        A mapping ``{n-gram: count}`` or a pair ``(labels, counts)``.  Counts are finite and
        ≥ 0 (a 0 keeps the n-gram in 𝒱 with prior weight log(0 + 1) = 0); labels are unique
        and of one orderable type, the same as the graph's item labels.

    Returns
    -------
    Vocabulary

    Raises
    ------
    DataError
        Empty vocabulary, duplicate or unorderable labels, negative or non-finite counts.

    Examples
    --------
    >>> public_vocabulary((["y", "x"], [0, 2])).labels.tolist()
    ['x', 'y']
    >>> public_vocabulary({})
    Traceback (most recent call last):
    ...
    dpcount.errors.DataError: public_counts is empty: the public data defines the vocabulary...
    """
    if isinstance(public_counts, Mapping):
        labels = _label_array(list(public_counts.keys()))
        raw_counts: Any = list(public_counts.values())
    elif isinstance(public_counts, tuple | list) and len(public_counts) == 2:
        labels = _label_array(public_counts[0])
        raw_counts = public_counts[1]
    else:
        raise DataError(
            "public_counts must be a mapping {n-gram: count} or a pair (labels, counts), "
            f"got {type(public_counts).__name__}"
        )
    try:
        counts = np.asarray(raw_counts, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataError(f"public counts must be numbers: {exc}") from exc
    if counts.shape != labels.shape:
        raise DataError(
            f"public counts have shape {counts.shape} but there are {labels.size} labels; "
            "give one count per n-gram"
        )
    if labels.size == 0:
        raise DataError(
            "public_counts is empty: the public data defines the vocabulary, so it needs at "
            "least one n-gram"
        )
    if not np.all(np.isfinite(counts)) or counts.min() < 0:
        raise DataError("public counts must be finite and non-negative")
    _label_kind(labels)
    try:
        order = np.argsort(labels, kind="stable")
    except TypeError as exc:
        raise DataError(f"public n-gram labels are not mutually orderable: {exc}") from exc
    labels, counts = labels[order], counts[order]
    if labels.size > 1 and np.any(labels[1:] == labels[:-1]):
        raise DataError("public n-gram labels must be unique (merge duplicate counts first)")
    labels.flags.writeable = False
    counts.flags.writeable = False
    return Vocabulary(labels, counts)


def private_counts(
    graph: PersonItemGraph, vocab: Vocabulary, *, require_overlap: bool = True
) -> PrivateCounts:
    """The graph's per-pair counts restricted to the public vocabulary.

    Private n-grams outside 𝒱 are dropped (the paper's setting: the output is a distribution
    over 𝒱 only); n-grams of 𝒱 nobody used keep count 0.  With ``require_overlap=False`` data
    that share nothing with 𝒱 (no persons, other label types, no common n-gram) give all-zero
    counts instead of an error: whether they overlap depends on the data, so a budgeted release
    must not fail on it.

    Raises
    ------
    InvalidParameterError
        ``graph`` is not a :class:`~dpcount.PersonItemGraph`.
    DataError
        The graph has no counts; with ``require_overlap`` also no persons, item labels of
        another type than the public ones, or no private n-gram in the public vocabulary.
    """
    check_graph(graph)
    if graph.counts is None:
        raise DataError(
            "the graph has no per-pair counts; build it with PersonItemGraph.from_pairs(..., "
            "counts=...) or dpcount.ngram_graph so that it says how often each person "
            "used each n-gram"
        )
    if graph.n_persons == 0 and require_overlap:
        raise DataError("the graph has no persons; the private data is empty")
    items = graph.item_labels
    private_kind, public_kind = _label_kind(items), _label_kind(vocab.labels)
    if items.size and private_kind != public_kind and not require_overlap:
        return _no_counts(graph, vocab)
    if items.size and private_kind != public_kind:
        raise DataError(
            f"vocabulary mismatch: the public n-grams are {public_kind} labels but the graph's "
            f"items are {private_kind} labels; use the same label type for both"
        )
    try:
        pos = np.searchsorted(vocab.labels, items)
    except TypeError as exc:
        if not require_overlap:
            return _no_counts(graph, vocab)
        raise DataError(f"vocabulary mismatch: labels cannot be compared: {exc}") from exc
    pos = np.minimum(pos, vocab.size - 1)
    in_vocab = vocab.labels[pos] == items
    persons, item_ids = graph.pairs()
    keep = in_vocab[item_ids]
    if not keep.any() and require_overlap:
        raise DataError(
            "vocabulary mismatch: none of the graph's n-grams is in the public vocabulary, so "
            "there is nothing private to release; check that both use the same n and tokenizer"
        )
    counts = np.asarray(graph.counts, dtype=np.float64)[keep]
    return PrivateCounts(
        person=persons[keep],
        word=pos[item_ids[keep]].astype(np.int64),
        count=counts,
        n_persons=graph.n_persons,
        n_words=vocab.size,
    )


def _no_counts(graph: PersonItemGraph, vocab: Vocabulary) -> PrivateCounts:
    """Counts of nobody over 𝒱: the data have nothing in common with the vocabulary."""
    empty = np.zeros(0, dtype=np.int64)
    return PrivateCounts(empty, empty, np.zeros(0), graph.n_persons, vocab.size)


def clamp(pc: PrivateCounts, limit: float) -> PrivateCounts:
    """Δcⁿ ← min(C, Δcⁿ) for every person n (Algorithm 1, first loop)."""
    return replace(pc, count=np.minimum(pc.count, float(limit)))


def restrict_persons(pc: PrivateCounts, persons: np.ndarray) -> PrivateCounts:
    """Only the pairs of the given person ids (person ids keep their numbering)."""
    member = np.zeros(pc.n_persons, dtype=bool)
    member[persons] = True
    keep = member[pc.person]
    return replace(pc, person=pc.person[keep], word=pc.word[keep], count=pc.count[keep])


def word_totals(pc: PrivateCounts) -> tuple[np.ndarray, np.ndarray]:
    """Total counts c = Σₙ Δcⁿ and holders N (persons with Δcᵢⁿ > 0) of every word of 𝒱."""
    c = np.bincount(pc.word, weights=pc.count, minlength=pc.n_words)
    holders = np.bincount(pc.word, minlength=pc.n_words).astype(np.float64)
    return c, holders
