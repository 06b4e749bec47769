"""The Spark engine's adapter: a declared mechanism called with :class:`~dpcount.spark.SparkPairs`.

PipelineDP's pattern: the caller switches engine by the data it passes, not by learning other
function names.  ``weighted_gaussian(SparkPairs(df, person="user", item="item"), 1.0, 1e-6)``
reaches :func:`release` (the mechanism's declaration routes every call whose data is an
engine's handle through :func:`mechanisms.registry.engine_adapter`), which runs the Spark
implementation of the mechanism's family with the caller's arguments:

* set union (every mechanism declared with ``engines=(..., "spark")``) →
  :func:`mechanisms.spark.union.set_union`;
* the distinct count → :func:`mechanisms.spark.count.distinct_count` (same default
  ``counting="matching"``: the graph is collected up to the handle's ``max_pairs``).

The results equal those of the two functions called directly, bit for bit on a seed.
What the Spark path cannot do is refused by :func:`engine_arguments` before any Spark work
(and, in a :class:`~mechanisms.Session`, before the charge): uniform Δ0 sampling (Spark samples
by keyed hash) and DP-SIPS with the adaptive weighting.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dpcount.errors import DataError, InvalidParameterError
from dpcount.spark import SparkPairs
from mechanisms.declaration import Declaration
from mechanisms.release import Release
from mechanisms.spark.count import distinct_count
from mechanisms.spark.union import set_union

__all__ = ["engine_arguments", "release"]


def _set_union_arguments(name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        if key == "sampling":
            if value != "keyed":
                raise InvalidParameterError(
                    f"on Spark each person's max_items items are chosen by keyed hash: pass "
                    f"sampling='keyed' or leave it out, not {value!r}"
                )
        elif key == "weighting":
            if value != "basic":
                raise InvalidParameterError(
                    f"{name} with weighting={value!r} does not run on Spark yet (only 'basic')"
                )
        elif name == "dp_sips" and key in ("d_max", "tau_offset"):
            raise InvalidParameterError(
                f"{key} belongs to dp_sips's weighting='mad', which does not run on Spark yet"
            )
        else:
            out[key] = value
    return out


def engine_arguments(
    declaration: Declaration,
    arguments: Mapping[str, Any],
    allowed: Mapping[str, bool] | None = None,
) -> dict[str, Any]:
    """The keyword arguments of the Spark function for a call of ``declaration`` with the
    caller's ``arguments`` (without the data); refuses what Spark cannot do, without Spark,
    and a release that collects the graph when ``allowed`` (what
    :meth:`dpcount.spark.SparkPairs.check` found) says it does not fit the driver.

    Examples
    --------
    >>> from mechanisms import registry
    >>> engine_arguments(registry.get("dp_sips"), {"epsilon": 1.0, "rounds": 2})
    {'epsilon': 1.0, 'rounds': 2}
    >>> engine_arguments(registry.get("weighted_laplace"), {"sampling": "uniform"})
    Traceback (most recent call last):
    ...
    dpcount.errors.InvalidParameterError: on Spark each person's max_items items are chosen by ...
    """
    declaration.check_engine(SparkPairs.engine)
    if declaration.family == "set_union":
        return _set_union_arguments(declaration.name, arguments)
    if declaration.family == "distinct_count":
        counting = arguments.get("counting", declaration.parameters()["counting"].default)
        collects = counting != "sampling"
        if collects and allowed is not None and not allowed.get("fits_driver", True):
            raise DataError(
                "the pairs exceed the driver limit max_pairs (checked when the session was "
                "created): use counting='sampling', the distributed count"
            )
        return dict(arguments)
    raise AssertionError(f"{declaration.name}: no Spark implementation of {declaration.family}")


def release(declaration: Declaration, data: SparkPairs, arguments: Mapping[str, Any]) -> Release:
    """Run the mechanism of ``declaration`` on ``data`` with the caller's ``arguments``."""
    kwargs = engine_arguments(declaration, arguments)
    source = (data.frame, data.person, data.item)
    if declaration.family == "set_union":
        return set_union(*source, algorithm=declaration.name, drop_nulls=data.drop_nulls, **kwargs)
    return distinct_count(*source, drop_nulls=data.drop_nulls, max_pairs=data.max_pairs, **kwargs)
