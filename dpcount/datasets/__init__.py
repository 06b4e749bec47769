"""Built-in data sets: synthetic presets, TPC-H queries and a classic teaching example.

``names()`` lists them, ``load(name)`` builds one as a :class:`~dpcount.graph.PersonItemGraph`.
The generators are also available directly: :func:`synthetic`, :func:`reddit_like`,
:func:`fashion_like`, :func:`tpch` and :func:`southern_women`.

==================  ===============================================================
name                what ``load(name, scale_factor=s, seed=k)`` returns
==================  ===============================================================
reddit-like         synthetic, Reddit-sized; ``scale_factor`` = fraction of the 223k persons
fashion-like        synthetic, fashion-sized (404 persons); ``scale_factor`` as above
tpch-ps-aq …        TPC-H queries PS.AQ, L.EP, O.OD, L.RD; ``scale_factor`` = TPC-H's
southern-women      Davis's Southern Women (18 persons, 14 events); ``scale_factor`` must be 1
==================  ===============================================================

``seed`` only affects the synthetic presets; TPC-H and Southern Women are deterministic.

Examples
--------
>>> from dpcount import datasets
>>> datasets.names()[:2]
['reddit-like', 'fashion-like']
>>> datasets.load("southern-women")
PersonItemGraph(n_persons=18, n_items=14, n_pairs=89)
>>> datasets.load("fashion-like", seed=3) == datasets.fashion_like(seed=3)
True
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from dpcount.datasets._synthetic import (
    MAX_SCALE_FACTOR,
    check_scale_factor,
    fashion_like,
    reddit_like,
    synthetic,
)
from dpcount.datasets._teaching import southern_women
from dpcount.datasets._tpch import TPCH_QUERIES, tpch, tpch_sql, tpch_tables
from dpcount.errors import InvalidParameterError, Option
from dpcount.graph import PersonItemGraph
from dpcount.validation import check_choice

__all__ = [
    "MAX_SCALE_FACTOR",
    "TPCH_QUERIES",
    "description",
    "fashion_like",
    "load",
    "names",
    "reddit_like",
    "southern_women",
    "synthetic",
    "tpch",
    "tpch_sql",
    "tpch_tables",
]


@dataclass(frozen=True)
class _Dataset:
    description: str
    # (scale_factor, seed, cache_dir) -> graph
    build: Callable[[float, int, str | os.PathLike[str] | None], PersonItemGraph]


def _synthetic_builder(preset: Callable[..., PersonItemGraph]) -> Callable[..., PersonItemGraph]:
    return lambda scale_factor, seed, cache_dir: preset(scale_factor=scale_factor, seed=seed)


def _tpch_builder(query: str) -> Callable[..., PersonItemGraph]:
    return lambda scale_factor, seed, cache_dir: tpch(query, scale_factor, cache_dir=cache_dir)


def _fixed(scale_factor: float, seed: int, cache_dir: object) -> PersonItemGraph:
    if scale_factor != 1:
        raise InvalidParameterError(
            "southern-women is a fixed data set; ",
            Option("scale_factor"),
            f" must be 1, got {scale_factor!r}",
        )
    return southern_women()


_TPCH_TEXT = {
    "PS.AQ": "distinct ps_availqty per supplier (US suppliers)",
    "L.EP": "distinct l_extendedprice per supplier (US suppliers)",
    "O.OD": "distinct o_orderdate per customer (US customers)",
    "L.RD": "distinct l_receiptdate per customer (US customers)",
}

_DATASETS: dict[str, _Dataset] = {
    "reddit-like": _Dataset(
        "synthetic, Reddit-sized: 223k persons, ~7.1M pairs, ~103k items",
        _synthetic_builder(reddit_like),
    ),
    "fashion-like": _Dataset(
        "synthetic, fashion-sized: 404 persons, ~8.5k pairs, ~1.45k items",
        _synthetic_builder(fashion_like),
    ),
    **{
        f"tpch-{query.lower().replace('.', '-')}": _Dataset(
            f"TPC-H {query}: {text}", _tpch_builder(query)
        )
        for query, text in _TPCH_TEXT.items()
    },
    "southern-women": _Dataset(
        "Davis's Southern Women: 18 women, 14 social events, 89 attendances", _fixed
    ),
}


def names() -> list[str]:
    """Names of the built-in data sets, in a fixed order.

    Examples
    --------
    >>> names()
    ['reddit-like', 'fashion-like', 'tpch-ps-aq', 'tpch-l-ep', 'tpch-o-od', 'tpch-l-rd',
     'southern-women']
    """
    return list(_DATASETS)


def description(name: str) -> str:
    """A one-line description of a built-in data set.

    Examples
    --------
    >>> description("southern-women")
    "Davis's Southern Women: 18 women, 14 social events, 89 attendances"
    """
    return _DATASETS[check_choice(name, "data set", names())].description


def load(
    name: str,
    *,
    scale_factor: float = 1.0,
    seed: int = 0,
    cache_dir: str | os.PathLike[str] | None = None,
) -> PersonItemGraph:
    """Build a built-in data set by name.

    Parameters
    ----------
    name
        One of :func:`names`.
    scale_factor
        For synthetic presets the fraction of persons (``0.01`` = 1%); for TPC-H the scale
        factor; must be 1 for ``southern-women``, at most :data:`MAX_SCALE_FACTOR` (100) for
        the others.
    seed
        Seed of the synthetic presets (ignored by the deterministic data sets).
    cache_dir
        Where generated TPC-H tables are cached (default: the user cache folder).

    Returns
    -------
    PersonItemGraph

    Raises
    ------
    InvalidParameterError
        On an unknown name or an invalid scale factor.
    DataError
        If TPC-H data cannot be generated (e.g. ``tpchgen-cli`` is missing).

    Examples
    --------
    >>> load("reddit-like", scale_factor=0.001, seed=1).n_persons
    223
    """
    dataset = _DATASETS[check_choice(name, "data set", names())]
    return dataset.build(check_scale_factor(scale_factor), seed, cache_dir)
