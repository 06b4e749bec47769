"""The registry: one declaration per mechanism, and everything that lists mechanisms agrees.

The declarations (``@register`` beside each mechanism) are the only list of mechanisms; the
source scan that the CLI uses, the imported declarations, ``privacy_loss_of``, the Session's
methods, the CLI's choices, the Spark engine and the names ``mechanisms`` exports must all be
that list.  A grid of parameters checks that each result records its declared privacy map.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
import pkgutil
import warnings
from typing import Any

import pytest

import mechanisms
from dpcount.cli._union import ALGORITHMS
from dpcount.errors import InvalidParameterError
from mechanisms import Session, registry
from mechanisms.accounting import PrivacyLoss
from mechanisms.declaration import ATTRIBUTE, FAMILIES, Declaration, register
from mechanisms.privacy_loss import privacy_loss_of
from mechanisms.session import offered
from tests.mechanisms.test_privacy_loss import CALLS

NAMES = registry.names()


def test_the_source_scan_finds_every_declared_mechanism() -> None:
    """Import every module of the package and collect what carries a declaration."""
    declared = set()
    for info in pkgutil.walk_packages(mechanisms.__path__, "mechanisms."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            d = getattr(value, ATTRIBUTE, None)
            if isinstance(d, Declaration) and d.module == info.name:
                declared.add(d.name)
    assert declared == set(NAMES) and len(NAMES) == len(declared)


def test_the_source_scan_reads_every_declaration_as_declared() -> None:
    for name in NAMES:
        entry, declared = registry.entry(name), registry.get(name)
        assert isinstance(declared, Declaration) and declared.name == name
        assert (entry.module, entry.family, entry.engines, entry.nominal) == (
            declared.module,
            declared.family,
            declared.engines,
            declared.nominal,
        )
        assert getattr(mechanisms, name) is declared.function  # exported by the package
        assert name in mechanisms.__all__


def test_filters() -> None:
    by_family = [registry.names(family=f) for f in FAMILIES]
    assert sorted(itertools.chain(*by_family)) == sorted(NAMES)
    assert set(registry.names(engine="spark")) <= set(NAMES)
    assert "dp_distinct_count" in registry.names(engine="spark")
    assert "policy_gaussian" not in registry.names(engine="spark")  # sequential by nature
    for bad in ({"family": "nope"}, {"engine": "gpu"}):
        with pytest.raises(InvalidParameterError):
            registry.names(**bad)
    with pytest.raises(InvalidParameterError, match="no mechanism is registered as 'gem'"):
        registry.get("gem")


@pytest.mark.parametrize("name", NAMES)
def test_each_privacy_map_fits_its_mechanism(name: str) -> None:
    d = registry.get(name)
    own = inspect.signature(d.function).parameters
    assert "rng" in own and d.data in own and set(d.inputs) <= set(own)
    for key, p in inspect.signature(d.loss).parameters.items():
        assert key in d.parameters(), (name, key)
        assert p.default == own[key].default or p.default is own[key].default, (name, key)
    assert set(d.session) <= set(own)


def test_privacy_loss_of_is_the_registry() -> None:
    for name in NAMES:
        d = registry.get(name)
        params = CALLS[name][1][0]
        assert privacy_loss_of(name, **params) == privacy_loss_of(d.function, **params)
    with pytest.raises(InvalidParameterError, match="no stated privacy loss"):
        privacy_loss_of("gem", epsilon=1.0)


def test_session_methods_are_the_registry() -> None:
    private = [n for n in NAMES if not registry.get(n).nominal]
    assert offered() == tuple(private)
    for name in NAMES:
        d = registry.get(name)
        assert hasattr(Session, name) is (not d.nominal)
        if not d.nominal:
            method = getattr(Session, name)
            assert inspect.signature(method) == d.session_signature()
            assert not {"rng", *d.session} & set(inspect.signature(method).parameters)


def test_cli_choices_are_the_registry() -> None:
    assert sorted(ALGORITHMS) == sorted(registry.names(family="set_union"))
    assert ALGORITHMS[0] == "dp_sips"  # the documented default


def test_spark_offers_exactly_its_declared_mechanisms() -> None:
    from mechanisms.spark.union import check_algorithm

    for name in registry.names(family="set_union"):
        if "spark" in registry.get(name).engines:
            check_algorithm(name)
        else:
            with pytest.raises(InvalidParameterError):
                check_algorithm(name)


def _grid(name: str) -> list[dict[str, Any]]:
    """The test's parameter choices for ``name``, each at several ε (and δ where taken)."""
    out = []
    takes = registry.get(name).parameters()
    for params, epsilon in itertools.product(CALLS[name][1], (0.05, 0.4, 1.0, 3.0)):
        key = "epsilon_release" if "epsilon_release" in params else "epsilon"
        point = {**params, key: epsilon}
        if "calibration" in takes and epsilon >= 1:  # the classical Gaussian needs ε < 1
            point["calibration"] = "analytic"
        out.append(point)
        if "delta" in params:
            out.append({**point, "delta": params["delta"] / 10})
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_result_records_its_declared_loss_on_a_grid(name: str) -> None:
    d = registry.get(name)
    data = CALLS[name][0]
    for params in _grid(name):
        stated = privacy_loss_of(name, **params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = d.function(*data, **params, rng=3)
        assert result.privacy_loss == stated, (name, params)


def test_a_declaration_that_does_not_fit_is_refused() -> None:
    def loss(epsilon: float, *, beta: float = 0.1) -> PrivacyLoss:
        return PrivacyLoss(epsilon)

    def toy(graph: Any, epsilon: float, *, beta: float = 0.05, rng: Any = None) -> None:
        return None

    def ok_loss(epsilon: float) -> PrivacyLoss:
        return PrivacyLoss(epsilon)

    register(family="distinct_count", loss=ok_loss)(toy)  # a fitting declaration passes
    for bad, match in [
        ({"family": "nope", "loss": ok_loss}, "family"),
        ({"family": "set_union", "loss": ok_loss, "engines": ("spark",)}, "engines"),
        ({"family": "set_union", "loss": ok_loss, "data": "frame"}, "no parameter"),
        ({"family": "set_union", "loss": ok_loss, "session": {"noise": "x"}}, "no parameter"),
        ({"family": "set_union", "loss": loss}, "default"),
    ]:
        with pytest.raises(TypeError, match=match):
            register(**bad)(toy)


def test_the_scan_reads_a_new_module() -> None:
    source = """
from mechanisms.declaration import register


@register(
    family="set_union",
    loss=toy_loss,
    engines=("local", "spark"),
)
def toy_union(graph, epsilon, delta, *, rng=None): ...


@register(family="ngrams", loss=other_loss, nominal=True)
@functools.cache
def toy_ngrams(graph, public_counts, epsilon, *, rng=None): ...


def not_a_mechanism(): ...
"""
    found = registry._read(source, "mechanisms.toy")
    assert [(e.name, e.family, e.engines, e.nominal) for e in found] == [
        ("toy_union", "set_union", ("local", "spark"), False),
        ("toy_ngrams", "ngrams", ("local",), True),
    ]
    with pytest.raises(AssertionError, match="literal"):
        registry._read("@register(family=FAMILY, loss=f)\ndef x(): ...\n", "mechanisms.toy")
