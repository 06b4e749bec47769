"""GROUP BY distinct counts under person-level DP: one Knop–Steinke lower bound per group.

The release runs in three steps (docs/grouped.md has the derivations):

1. **Contribution bounding across groups.**  Every person keeps at most ``max_groups`` (k) of
   their groups: the k whose keyed XXH64 hash of (secret key, person label, group label)
   is smallest (:meth:`dpcount.graph.GroupedGraph.keep_groups`).  The choice reads only that
   person's own groups and the key, never another person, so the bounded data of neighbours are
   neighbours.
2. **Group keys.**  Either public (``groups=``, no selection cost; keys absent from the data are
   counted on an empty graph and give a bound ≤ 0), or chosen privately (``groups=None``) by the
   weighted Gaussian set union (Gopi et al. 2020, Alg. 8;
   :func:`mechanisms.set_union.weighted_gaussian`) over the bounded person → group graph with
   Δ0 = k, at (ε_select, δ) with ε_select = ``selection_share`` · ε.
3. **Counting.**  With ε_count = ε − ε_select, every released group g gets the Laplace lower
   bound DC_g(D;ℓ) + Lap(kℓ/ε_c) − shift of Knop & Steinke (Eq. 3, 4) at the ℓ that
   ``ell_choice`` gives (:mod:`mechanisms.grouped_ell`): by default **one ℓ for all groups**,
   chosen by GEM on the summed utilities with ε_choose = ``ell_share``·ε_count and ε_c =
   ε_count − ε_choose; or Algorithm 1 in every group at ε_count/k (``"per_group"``); or a
   public ``ell`` (nothing spent choosing, ε_c = ε_count).

Composition argument: after step 1, adding or removing one person changes the data of at most
k groups, and within a group changes DC_g(D;ℓ) by at most ℓ.  So Σ_g DC_g(D;ℓ) moves by at most
kℓ (the shared choice of ℓ is ε_choose-DP), and at a given ℓ the vector of counts moves by at
most kℓ in ℓ1 (Laplace kℓ/ε_c per group is ε_c-DP); per group, Algorithm 1 at ε_count/k is
(ε_count/k)-DP in that group's data and a neighbour touches at most k groups.  Either way the
table of counts is ε_count-DP.  With private keys, the counts are computed after (and only for)
the released keys, so basic composition gives (ε_select + ε_count, δ) = (ε, δ) in total.

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

import json
import secrets
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpcount.common.rng import RNGLike, spawn
from dpcount.errors import DataError, InvalidParameterError, Option
from dpcount.graph import GroupedGraph, PersonItemGraph, graph_from_codes
from dpcount.io import table_kind
from dpcount.validation import (
    MAX_ELL,
    MAX_ITEMS,
    check_beta,
    check_choice,
    check_delta,
    check_epsilon,
    check_keys,
    check_positive_int,
    check_probability,
)
from matching.grouped import grouped_curves
from mechanisms.accounting import PrivacyLoss
from mechanisms.declaration import register
from mechanisms.grouped_ell import DEFAULT_ELL_SHARE, ell_loss, plan_ell, release_rows
from mechanisms.release import Release, count_lower_bound, html_grid

__all__ = [
    "GroupRow",
    "GroupedDistinctCountResult",
    "as_grouped_graph",
    "grouped_distinct_count",
    "grouped_distinct_count_loss",
]

COUNTINGS: tuple[str, ...] = ("matching", "greedy", "sampling")
_METHODS = {"matching": "incremental", "greedy": "greedy", "sampling": "sampling"}
_SELECTION = "weighted_gaussian"


@dataclass(frozen=True)
class GroupRow:
    """One released group: its (1 − β) lower bound, the chosen ℓ and the Laplace scale."""

    group: Hashable
    estimate: int | float
    ell: int
    scale: float

    @property
    def lower_bound(self) -> int:
        """The group's bound as a count of items: ⌈``estimate``⌉, and 0 when it is negative."""
        return count_lower_bound(self.estimate)


@dataclass(frozen=True)
class GroupedDistinctCountResult(Release):
    """The released table; ``privacy_loss`` covers all rows (and the key selection) together.

    Attributes
    ----------
    rows
        One :class:`GroupRow` per released group, in the order of ``groups=`` (public keys)
        or in label order (private keys).
    epsilon, delta
        The total budget spent.
    beta, group_beta
        The requested failure probability and the one each group's bound uses (β over the
        number of rows with ``family_wise``).
    max_groups
        k: groups kept per person.
    counting
        ``"matching"``, ``"greedy"`` or ``"sampling"``.
    selection
        ``"public"`` or the set-union mechanism that chose the keys.
    selection_epsilon, count_epsilon
        The split of ε between the keys and the table of counts (choice of ℓ included).
    ell_choice
        How ℓ was chosen: ``"shared"`` (one ℓ for all groups), ``"per_group"`` or
        ``"public"``.
    ell_epsilon
        The part of ``count_epsilon`` spent choosing ℓ (0 for a public ℓ); each group's
        count ran at (count_epsilon − ell_epsilon) / max_groups.
    privacy_loss
        The composed (ε, δ).
    """

    rows: tuple[GroupRow, ...]
    epsilon: float
    delta: float
    beta: float
    group_beta: float
    max_groups: int
    counting: str
    selection: str
    selection_epsilon: float
    count_epsilon: float
    ell_choice: str
    ell_epsilon: float
    privacy_loss: PrivacyLoss
    mechanism: str = field(default="grouped_distinct_count")
    secure: bool = field(default=True)

    @property
    def scale(self) -> tuple[float, ...]:  # type: ignore[override]
        """The Laplace scale of each row."""
        return tuple(r.scale for r in self.rows)

    def _rows(self) -> list[tuple[str, str]]:
        keys = "public" if self.selection == "public" else f"chosen by {self.selection}"
        return [
            ("groups", f"{len(self.rows)} (keys {keys}), at most {self.max_groups} per person"),
            *((str(r.group), f"≥ {r.estimate} (ℓ = {r.ell})") for r in self.rows),
        ]

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values, JSON-ready (numpy scalars as Python numbers).

        ``result``, ``mechanism``, ``is_private`` and ``secure`` lead, as in every release's
        ``to_dict``; :meth:`~Release.from_dict` reads it back.

        Examples
        --------
        >>> t = grouped_distinct_count([("p", "g", 1)], 1.0, groups=["g"], max_groups=1, rng=1)
        >>> GroupedDistinctCountResult.from_json(t.to_json()) == t
        True
        """
        return {
            "result": type(self).__name__,
            "mechanism": self.mechanism,
            "is_private": self.is_private,
            "secure": self.secure,
            **({"seeded": True} if self.seeded else {}),
            "epsilon": self.epsilon,
            "delta": self.delta,
            "beta": self.beta,
            "group_beta": self.group_beta,
            "max_groups": self.max_groups,
            "counting": self.counting,
            "selection": self.selection,
            "selection_epsilon": self.selection_epsilon,
            "count_epsilon": self.count_epsilon,
            "ell_choice": self.ell_choice,
            "ell_epsilon": self.ell_epsilon,
            "rows": [
                {"group": _py(r.group), "estimate": r.estimate, "ell": r.ell, "scale": r.scale}
                for r in self.rows
            ],
            "privacy_loss": self.privacy_loss.to_dict(),
        }

    def to_json(self, **kwargs: Any) -> str:
        """:meth:`to_dict` as a JSON string (group labels that JSON cannot hold become text).

        Keyword arguments go to :func:`json.dumps` (e.g. ``indent=2``).
        """
        kwargs.setdefault("ensure_ascii", False)
        return json.dumps(self.to_dict(), default=str, **kwargs)

    def to_pandas(self) -> Any:
        """The rows as a :class:`pandas.DataFrame` (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.to_dict()["rows"], columns=["group", "estimate", "ell", "scale"])

    def _repr_html_(self) -> str:
        rows = [(str(r.group), str(r.estimate), str(r.ell), f"{r.scale:g}") for r in self.rows]
        note = (
            f"ε = {self.epsilon:g}, δ = {self.delta:g}, k = {self.max_groups}, "
            f"keys: {self.selection}"
        )
        return html_grid(["group", "estimate", "ℓ", "noise scale"], rows, note)


def _py(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def as_grouped_graph(
    data: Any, person: str = "person", group: str = "group", item: str = "item"
) -> GroupedGraph:
    """A :class:`GroupedGraph` from a grouped graph, (person, group, item) rows or a table.

    A table in memory (pandas, polars, Arrow, a DuckDB relation) is read by
    :func:`dpcount.read_triples`, its columns selected **by name**; one without those columns
    is refused with the names it has.  Rows are triples in (person, group, item) order.

    Examples
    --------
    >>> as_grouped_graph([("ann", "eu", 1), ("bob", "eu", 2)]).n_triples
    2
    >>> import pandas as pd
    >>> as_grouped_graph(pd.DataFrame({"user": [1], "product": ["x"], "region": ["eu"]}))
    Traceback (most recent call last):
    ...
    dpcount.errors.DataError: pandas DataFrame: person column 'person' and group column 'group' \
and item column 'item' not found; available columns: ['user', 'product', 'region']
    """
    if isinstance(data, GroupedGraph):
        return data
    if isinstance(data, PersonItemGraph):
        raise DataError(
            "a PersonItemGraph has no group column; read the data with "
            "dpcount.read_triples(..., group=...) or pass (person, group, item) rows"
        )
    if table_kind(data) is not None:
        return GroupedGraph.from_dataframe(data, person=person, group=group, item=item)
    rows = [tuple(row) for row in data]
    for number, row in enumerate(rows, 1):
        if len(row) != 3:
            raise DataError(f"row {number} is not a (person, group, item) triple: {row!r}")
    if not rows:
        raise DataError("no rows; expected (person, group, item) triples")
    persons, groups, items = zip(*rows, strict=True)
    return GroupedGraph.from_triples(persons, groups, items)


def _check_groups(groups: Sequence[Hashable]) -> list[Hashable]:
    keys = check_keys(groups, "groups")
    if not keys:
        raise InvalidParameterError(
            "groups must list at least one group key (or be None to choose keys privately)"
        )
    if len(set(keys)) != len(keys):
        raise InvalidParameterError("groups must not repeat a key")
    return keys


def _select_keys(
    bounded: GroupedGraph, epsilon: float, delta: float, k: int, rng: np.random.Generator
) -> list[Hashable]:
    """Weighted Gaussian set union (Gopi et al. Alg. 8) over person → kept groups, Δ0 = k."""
    from mechanisms.set_union import weighted_gaussian

    person_groups = graph_from_codes(
        bounded.row_persons, bounded.row_groups(), bounded.person_labels, bounded.group_labels
    )
    released = weighted_gaussian(person_groups, epsilon, delta, max_items=k, rng=rng)
    return list(released.items.tolist())


def _split(
    epsilon: float,
    groups: Sequence[Hashable] | None,
    delta: float | None,
    selection_share: float,
) -> tuple[float, float, float]:
    """(ε, δ, ε_select): the budget, and the share that chooses the keys (0 for public keys)."""
    eps = check_epsilon(epsilon)
    if groups is not None:
        if delta is not None:
            raise InvalidParameterError(
                Option("delta"),
                " applies to private key selection only; drop it or pass ",
                Option("groups", None),
            )
        return eps, 0.0, 0.0
    if delta is None:
        raise InvalidParameterError(
            Option("groups", None),
            " chooses the group keys privately and needs ",
            Option("delta", 1e-6),
            " or so; or pass the public keys as ",
            Option("groups"),
        )
    return eps, check_delta(delta), eps * check_probability(selection_share, "selection_share")


def grouped_distinct_count_loss(
    epsilon: float,
    *,
    max_groups: int,
    groups: Sequence[Hashable] | None = None,
    delta: float | None = None,
    ell_max: int = 100,
    ell: int | None = None,
    ell_choice: str = "shared",
    ell_share: float = DEFAULT_ELL_SHARE,
    counting: str = "matching",
    selection_share: float = 0.5,
) -> PrivacyLoss:
    """The privacy loss of :func:`grouped_distinct_count` from its parameters alone.

    ε_count for the table of counts – the choice of ℓ (0 for a public ℓ) plus the counts,
    :func:`mechanisms.grouped_ell.ell_loss` – plus, with private keys, (ε_select, δ) for
    choosing them (module docstring).

    Examples
    --------
    >>> grouped_distinct_count_loss(1.0, max_groups=2, groups=["a"])
    PrivacyLoss(epsilon=1, delta=0, 'grouped counts, ℓ shared')
    >>> public = grouped_distinct_count_loss(1.0, max_groups=2, groups=["a"], ell=3)
    >>> [part.epsilon for part in public.parts]
    [0.0, 1.0]
    >>> grouped_distinct_count_loss(1.0, max_groups=2, delta=1e-6).parts[0].epsilon
    0.5
    """
    eps, dlt, eps_select = _split(epsilon, groups, delta, selection_share)
    k = check_positive_int(max_groups, "max_groups", maximum=MAX_ITEMS)
    check_choice(counting, "counting", COUNTINGS)
    ell_max = check_positive_int(ell_max, "ell_max", maximum=MAX_ELL)
    plan = plan_ell(
        eps - eps_select, ell=ell, ell_max=ell_max, ell_choice=ell_choice, ell_share=ell_share
    )
    count_loss = ell_loss(plan, k, counting)
    if not eps_select:
        return count_loss
    select_loss = PrivacyLoss(eps_select, dlt, f"group keys by {_SELECTION} set union")
    return select_loss.compose(count_loss, description="grouped distinct count")


@register(family="grouped_count", loss=grouped_distinct_count_loss, data="data")
def grouped_distinct_count(
    data: Any,
    epsilon: float,
    *,
    max_groups: int,
    person: str = "person",
    group: str = "group",
    item: str = "item",
    groups: Sequence[Hashable] | None = None,
    delta: float | None = None,
    beta: float = 0.05,
    ell_max: int = 100,
    ell: int | None = None,
    ell_choice: str = "shared",
    ell_share: float = DEFAULT_ELL_SHARE,
    counting: str = "matching",
    family_wise: bool = False,
    selection_share: float = 0.5,
    rng: RNGLike = None,
) -> GroupedDistinctCountResult:
    """A (1 − β) lower bound on the distinct items of every group, (ε, δ)-DP per person.

    Parameters
    ----------
    data
        A :class:`~dpcount.graph.GroupedGraph` (e.g. from :func:`dpcount.read_triples`),
        (person, group, item) rows, or a table in memory (pandas, polars, Arrow, a DuckDB
        relation) whose columns ``person``, ``group`` and ``item`` name.
    epsilon
        Total budget ε (selection of keys plus counts; module docstring).
    max_groups
        k ≥ 1: each person keeps at most k groups, chosen by a keyed hash.
    person, group, item
        The columns of a table ``data`` holding the person id, the group key and the item id,
        selected by name (default ``"person"``, ``"group"``, ``"item"``).
    groups
        Public group keys to release (no selection cost; must not be empty).  ``None``: keys
        are chosen privately by the weighted Gaussian set union, which needs ``delta``.
    delta
        δ of the private key selection; must be ``None`` with public ``groups``.
    beta
        Per-group failure probability; with ``family_wise=True`` β is split over the released
        groups (β over their number each), so all bounds hold together with probability
        ≥ 1 − β.
    ell_max
        Largest contribution bound GEM may choose; ``ell_max=1`` makes ℓ = 1 public.
    ell
        A **public** per-group contribution bound, fixed without looking at the data (e.g. a
        cap the schema guarantees: one vote per person in each poll).  Nothing is spent
        choosing it: every group's count gets ε_count/k, Laplace scale kℓ/ε_count.
    ell_choice
        Without ``ell``: ``"shared"`` (default) chooses one ℓ for all groups by GEM on the
        sum of the groups' utilities, spending ``ell_share``·ε_count; ``"per_group"`` runs
        Algorithm 1 in every group (half of each group's ε_count/k chooses its ℓ).
        docs/grouped.md compares the two.
    ell_share
        Share of ε_count that ``"shared"`` spends choosing ℓ (default 0.1).
    counting
        ``"matching"`` (exact DC_g(D;ℓ)), ``"greedy"`` or ``"sampling"`` (the truncation
        baseline: ℓ random items per person per kept group, same budget and shift).
    selection_share
        With private keys, the share of ε spent on choosing them (default ½); the rest counts.
    rng
        None | int | Generator | SeedSequence; also draws the secret hash key.

    Returns
    -------
    GroupedDistinctCountResult

    Raises
    ------
    InvalidParameterError
        Empty or repeated ``groups``, k < 1, ``delta`` missing for private keys (or given for
        public ones), an unknown ``ell_choice``, ``ell_share`` outside (0, 1), or the usual
        ε, β, ℓ_max, ℓ checks.
    DataError
        Rows that are not (person, group, item) triples, a table without the named columns,
        nulls or mixed label kinds.

    See Also
    --------
    dpcount.read_triples : Reads person–group–item data.
    mechanisms.dp_distinct_count : The same release for one global count.

    Notes
    -----
    Privacy: (ε, δ)-DP (δ = 0 with public keys) under adding or removing one person with all
    their triples (module docstring for the composition over groups).  Accuracy: each row's
    estimate is ≤ DC_g(D) with probability ≥ 1 − β (Knop & Steinke Thm 1.1 at ε_count/k), for
    DC_g of the data after each person's k-group bounding.

    References
    ----------
    Knop, Steinke, "Counting Distinct Elements Under Person-Level Differential Privacy", 2023.
    Gopi, Gulhane, Kulkarni, Shen, Shokouhi, Yekhanin, "Differentially Private Set Union", 2020.

    Examples
    --------
    >>> t = grouped_distinct_count([("p", "g", 1)], 1.0, groups=["g"], max_groups=1, rng=1)
    >>> t.rows[0].group, t.max_groups, t.selection
    ('g', 1, 'public')
    """
    loss = grouped_distinct_count_loss(
        epsilon,
        max_groups=max_groups,
        groups=groups,
        delta=delta,
        ell_max=ell_max,
        ell=ell,
        ell_choice=ell_choice,
        ell_share=ell_share,
        counting=counting,
        selection_share=selection_share,
    )
    eps, dlt, eps_select = _split(epsilon, groups, delta, selection_share)
    b = check_beta(beta)
    k = check_positive_int(max_groups, "max_groups")
    ell_max = check_positive_int(ell_max, "ell_max", maximum=MAX_ELL)
    keys: list[Hashable] | None = None if groups is None else _check_groups(groups)
    eps_count = eps - eps_select
    plan = plan_ell(eps_count, ell=ell, ell_max=ell_max, ell_choice=ell_choice, ell_share=ell_share)
    graph = as_grouped_graph(data, person, group, item)
    key_rng, select_rng, curve_rng, gem_rng, noise_rng = spawn(rng, 5)
    hash_key = int(key_rng.integers(2**63)) if rng is not None else secrets.randbits(63)
    if keys is not None:
        graph = graph.select_groups(keys)
    bounded = graph.keep_groups(k, hash_key)
    if keys is None:
        keys = _select_keys(bounded, eps_select, dlt, k, select_rng)
        bounded = bounded.select_groups(keys)
    # Every curve is flat from the largest degree on, so only that many columns are computed
    # (a huge ℓ_max allocates nothing per ℓ); GEM handles the flat tail in closed form.
    longest = plan.ell if plan.ell is not None else ell_max
    width = max(1, min(longest, int(np.diff(bounded.indptr).max(initial=0))))
    curves = grouped_curves(bounded, width, _METHODS[counting], rng=curve_rng)
    group_beta = b / max(1, len(keys)) if family_wise else b
    empty = np.zeros(width, dtype=np.int64)
    released = [curves[g] if g >= 0 else empty for g in map(bounded.group_index, keys)]
    estimates = release_rows(
        plan, released, curves, k, group_beta, ell_max, counting, gem_rng, noise_rng
    )
    rows = [GroupRow(key, *row) for key, row in zip(keys, estimates, strict=True)]
    return GroupedDistinctCountResult(
        rows=tuple(rows),
        epsilon=eps,
        delta=dlt,
        beta=b,
        group_beta=group_beta,
        max_groups=k,
        counting=counting,
        selection="public" if eps_select == 0 else _SELECTION,
        selection_epsilon=eps_select,
        count_epsilon=eps_count,
        ell_choice=plan.choice,
        ell_epsilon=plan.choose_epsilon,
        privacy_loss=loss,
        # Private keys come from the weighted Gaussian set union with exact discrete noise.
        secure=True,
    )
