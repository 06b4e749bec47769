"""GROUP BY distinct counts under person-level DP: one Knop–Steinke lower bound per group.

Contribution bounding across groups: every person keeps at most ``max_groups`` (k) of their
groups, the k whose keyed hash BLAKE2b(key, person label, group label) is smallest.  The choice
reads only that person's own groups and a secret per-release key, never another person.

Composition argument: after the bounding, adding or removing one person changes the data of at
most k groups (and within one group changes DC_g(D;ℓ) by at most ℓ).  Each group's release is
:func:`mechanisms.dp_distinct_count_from_curve` at ε/k (ε/2k for GEM, ε/2k for the Laplace count
with the full shift, Knop & Steinke Algorithm 1).  A neighbour touches at most k of these
releases and the others see identical inputs, so by sequential composition over the touched
groups the whole table is (k · ε/k) = ε-DP.  Group keys must be public (``groups=``); groups
absent from the data are counted on an empty graph, giving a bound ≤ 0.

Examples
--------
>>> persons = [f"p{i}" for i in range(400)]
>>> triples = [(p, "a" if i % 2 else "b", i) for i, p in enumerate(persons)]
>>> t = grouped_distinct_count(triples, 1.0, groups=["a", "b", "c"], max_groups=1, rng=0)
>>> [row.group for row in t.rows], t.privacy_loss.epsilon
(['a', 'b', 'c'], 1.0)
>>> t.rows[2].estimate <= 0
True
"""

from __future__ import annotations

import hashlib
import html
import secrets
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import matching
from dpcount.errors import DataError, InvalidParameterError
from dpcount.graph import PersonItemGraph
from dpcount.validation import check_beta, check_choice, check_epsilon, check_positive_int
from mechanisms._rng import RNGLike, spawn
from mechanisms.accounting import PrivacyLoss
from mechanisms.distinct_count import curve_length, dp_distinct_count_from_curve

__all__ = ["GroupRow", "GroupedDistinctCountResult", "grouped_distinct_count", "keep_groups"]

COUNTINGS: tuple[str, ...] = ("matching", "greedy", "sampling")


def _hash(key: bytes, person: Hashable, group: Hashable) -> int:
    """Keyed BLAKE2b of (person, group): a pseudo-random rank that no other person affects."""
    text = repr((type(person).__name__, person, type(group).__name__, group)).encode()
    return int.from_bytes(hashlib.blake2b(text, key=key, digest_size=8).digest(), "big")


def keep_groups(
    triples: Iterable[tuple[Hashable, Hashable, Hashable]], max_groups: int, key: bytes
) -> list[tuple[Hashable, Hashable, Hashable]]:
    """The triples of each person's ≤ ``max_groups`` groups of smallest keyed hash.

    Examples
    --------
    >>> rows = [("p", g, 1) for g in "abcde"]
    >>> len({g for _, g, _ in keep_groups(rows, 2, b"k")})
    2
    """
    rows = list(triples)
    groups_of: dict[Hashable, set[Hashable]] = {}
    for person, group, _ in rows:
        groups_of.setdefault(person, set()).add(group)
    kept: dict[Hashable, set[Hashable]] = {}
    for person, groups in groups_of.items():
        ranked = sorted(groups, key=lambda g: _hash(key, person, g))
        kept[person] = set(ranked[:max_groups])
    return [row for row in rows if row[1] in kept[row[0]]]


@dataclass(frozen=True)
class GroupRow:
    """One released group: its (1 − β) lower bound, the chosen ℓ and the noise scale."""

    group: Hashable
    estimate: int | float
    ell: int
    noise_scale: float


@dataclass(frozen=True)
class GroupedDistinctCountResult:
    """The released table; ``privacy_loss`` covers all rows together."""

    rows: tuple[GroupRow, ...]
    epsilon: float
    beta: float
    group_beta: float
    max_groups: int
    counting: str
    privacy_loss: PrivacyLoss

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values, JSON-ready (groups as given)."""
        return {
            "epsilon": self.epsilon,
            "beta": self.beta,
            "group_beta": self.group_beta,
            "max_groups": self.max_groups,
            "counting": self.counting,
            "rows": [
                {
                    "group": r.group,
                    "estimate": r.estimate,
                    "ell": r.ell,
                    "noise_scale": r.noise_scale,
                }
                for r in self.rows
            ],
        }

    def to_pandas(self) -> Any:
        """The rows as a :class:`pandas.DataFrame` (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.to_dict()["rows"])

    def _repr_html_(self) -> str:
        head = "<tr><th>group</th><th>estimate</th><th>ℓ</th><th>noise scale</th></tr>"
        body = "".join(
            f"<tr><td>{html.escape(str(r.group))}</td><td>{r.estimate}</td><td>{r.ell}</td>"
            f"<td>{r.noise_scale:g}</td></tr>"
            for r in self.rows
        )
        return f"<table>{head}{body}</table><p>ε = {self.epsilon:g}, k = {self.max_groups}</p>"


def _triples(data: Any) -> list[tuple[Hashable, Hashable, Hashable]]:
    """(person, group, item) rows from a sequence of triples or a 3-column DataFrame."""
    if hasattr(data, "columns"):
        if len(data.columns) != 3:
            raise DataError("the DataFrame must have exactly 3 columns: person, group, item")
        return [tuple(row) for row in data.itertuples(index=False, name=None)]
    rows = [tuple(row) for row in data]
    for number, row in enumerate(rows, 1):
        if len(row) != 3:
            raise DataError(f"row {number} is not a (person, group, item) triple: {row!r}")
    return rows


def grouped_distinct_count(
    data: Any,
    epsilon: float,
    *,
    groups: Sequence[Hashable],
    max_groups: int,
    beta: float = 0.05,
    ell_max: int = 100,
    counting: str = "matching",
    family_wise: bool = False,
    rng: RNGLike = None,
) -> GroupedDistinctCountResult:
    """A (1 − β) lower bound on the distinct items of every public group, ε-DP per person.

    Parameters
    ----------
    data
        (person, group, item) triples, or a DataFrame of those three columns.
    epsilon
        Total budget; each group's release runs at ε/k (see the module docstring).
    groups
        The public group keys to release (no selection cost); must not be empty.
    max_groups
        k ≥ 1: each person keeps at most k groups, chosen by a keyed hash.
    beta
        Per-group failure probability; with ``family_wise=True`` β is split over the groups
        (β over the number of groups each), so all bounds hold together with probability ≥ 1 − β.
    ell_max
        Largest per-group contribution bound GEM may choose.
    counting
        ``"matching"`` (exact DC_g(D;ℓ)), ``"greedy"`` or ``"sampling"`` (the truncation
        baseline: ℓ random items per person per group, same budget and shift).
    rng
        None | int | Generator | SeedSequence; also draws the secret hash key.

    Returns
    -------
    GroupedDistinctCountResult

    Examples
    --------
    >>> t = grouped_distinct_count([("p", "g", 1)], 1.0, groups=["g"], max_groups=1, rng=1)
    >>> t.rows[0].group, t.max_groups
    ('g', 1)
    """
    eps = check_epsilon(epsilon)
    b = check_beta(beta)
    k = check_positive_int(max_groups, "max_groups")
    ell_max = check_positive_int(ell_max, "ell_max", maximum=2**31 - 1)
    check_choice(counting, "counting", COUNTINGS)
    keys = list(groups)
    if not keys:
        raise InvalidParameterError("groups must list at least one group key")
    if len(set(keys)) != len(keys):
        raise InvalidParameterError("groups must not repeat a key")
    group_beta = b / len(keys) if family_wise else b
    key_rng, *streams = spawn(rng, 1 + 3 * len(keys))
    key = key_rng.bytes(16) if rng is not None else secrets.token_bytes(16)
    wanted = set(keys)
    kept = keep_groups((t for t in _triples(data) if t[1] in wanted), k, key)
    by_group: dict[Hashable, tuple[list[Hashable], list[Hashable]]] = {g: ([], []) for g in keys}
    for person, group, item in kept:
        persons, items = by_group[group]
        persons.append(person)
        items.append(item)
    rows = []
    for index, group in enumerate(keys):
        graph = PersonItemGraph.from_pairs(*by_group[group])
        curve_rng, selection_rng, noise_rng = streams[3 * index : 3 * index + 3]
        method = "auto" if counting == "matching" else counting
        length = curve_length(graph.degrees(), ell_max, "gem")  # ≤ the largest degree
        if graph.n_persons:
            curve = matching.dc_curve(graph, length, method, rng=curve_rng)
        else:
            curve = np.zeros(length, dtype=np.int64)
        r = dp_distinct_count_from_curve(
            curve,
            graph.degrees(),
            eps / k,
            group_beta,
            ell_max,
            counting=counting,  # type: ignore[arg-type]
            selection_rng=selection_rng,
            noise_rng=noise_rng,
        )
        rows.append(GroupRow(group, r.estimate, r.ell, r.noise_scale))
    loss = PrivacyLoss(eps, description=f"grouped distinct count, {len(keys)} groups, k = {k}")
    return GroupedDistinctCountResult(tuple(rows), eps, b, group_beta, k, counting, loss)
