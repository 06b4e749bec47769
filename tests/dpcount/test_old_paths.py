"""The module paths that moved keep working for one release, and say where the names went."""

from __future__ import annotations

import importlib
import warnings

import pytest

#: old module -> (a name it exported, the module that defines it now, the name there)
MOVED = {
    "dpcount._rng": ("spawn", "dpcount.common.rng", "spawn"),
    "dpcount._jit": ("kernel", "dpcount.common.jit", "kernel"),
    "dpcount._hashing": ("keyed_pair_ranks", "dpcount.common.hashing", "keyed_pair_ranks"),
    "dpcount._lazy": ("lazy_attributes", "dpcount.common.lazy", "lazy_attributes"),
    "dpcount._memory": ("release_free_memory", "dpcount.common.memory", "release_free_memory"),
    "dpcount.grouped": ("GroupedGraph", "dpcount.graph.grouped", "GroupedGraph"),
    "dpcount.triples": ("read_triples", "dpcount.io.triples", "read_triples"),
    "dpcount.text": ("ngram_graph", "dpcount.io.tokens", "ngram_graph"),
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_gives_the_same_object_and_warns(old: str) -> None:
    name, new, new_name = MOVED[old]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        module = importlib.import_module(old)  # importing alone is quiet (doctest collection)
    with pytest.warns(DeprecationWarning, match=rf"{old}\.{name} moved to {new}"):
        found = getattr(module, name)
    assert found is getattr(importlib.import_module(new), new_name)


def test_the_private_seed_sequence_has_a_public_name() -> None:
    from dpcount.common.rng import seed_sequence

    with pytest.warns(DeprecationWarning):
        from dpcount._rng import _seed_sequence
    assert _seed_sequence is seed_sequence


def test_a_name_that_never_was_there_is_an_attribute_error() -> None:
    module = importlib.import_module("dpcount._rng")
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018
