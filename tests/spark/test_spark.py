"""dpcount.spark against the local path: same graph, same ranks/weights/curves, clear errors.

All tests share one local[2] session (conftest) and use DataFrames of at most a few hundred
rows, so the whole file runs in well under the 3-minute CI budget.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcount import PersonItemGraph
from dpcount.common.hashing import SEED, hash_word, label_keys
from dpcount.errors import DataError, InvalidParameterError
from dpcount.spark import frames, read_pairs
from dpcount.spark.curve import sampling_curve as spark_curve
from dpcount.spark.hashing import item_noise, label_key_column, pair_hash, release_key
from dpcount.spark.ingest import prepare_pairs
from matching.sampling import sampling_curve
from mechanisms import dp_distinct_count
from mechanisms.set_union._bounding import CappedSets, cap_contributions_keyed
from mechanisms.set_union.adaptive import mad_weights, max_adaptive_degree
from mechanisms.set_union.sips import dp_sips
from mechanisms.set_union.weighted import (
    basic_weights,
    count_laplace,
    count_weights,
    weighted_gaussian,
)
from mechanisms.spark import distinct_count, set_union
from mechanisms.spark.adaptive import mad_weights_frame
from mechanisms.spark.union import release_keys
from mechanisms.spark.weights import weights_frame

SLOW = settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))


def _frame(spark: Any, persons: list[Any], items: list[Any]) -> Any:
    return spark.createDataFrame(pd.DataFrame({"u": persons, "w": items}))


def _item_vector(weights: Any, graph: PersonItemGraph) -> np.ndarray:
    """A Spark ``(i, w)`` frame as a vector over the graph's item ids (0 where absent)."""
    table = weights.toPandas()
    out = np.zeros(graph.n_items)
    out[np.searchsorted(graph.item_labels, table["i"].to_numpy().astype(str))] = table["w"]
    return out


pairs_strategy = st.lists(
    st.tuples(st.integers(0, 12), st.sampled_from(["a", "b", "é", "Z", "ab", "x1", "∂", "b2"])),
    min_size=1,
    max_size=60,
)


labels_strategy = st.lists(
    st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=40),
    min_size=1,
    max_size=25,
)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(words=labels_strategy, key=st.integers(0, 2**64 - 1))
def test_label_keys_and_pair_hash_are_sparks_xxhash64(spark: Any, words: list, key: int) -> None:
    """Spark's native ``xxhash64`` computes the local label keys and pair hash bit for bit
    (strings of every UTF-8 length class, integers incl. negative ones)."""
    numbers = [(7919 * k) * (-1) ** k for k in range(len(words))]
    df = spark.createDataFrame(list(zip(words, numbers, strict=True)), "p string, i int")
    got = df.select(
        label_key_column(df, "p").alias("kp"),
        label_key_column(df, "i").alias("ki"),
        pair_hash(key, label_key_column(df, "p"), label_key_column(df, "i")).alias("h"),
    ).toPandas()
    person_keys, item_keys = label_keys(np.array(words)), label_keys(np.array(numbers))
    assert got["kp"].to_numpy().view(np.uint64).tolist() == person_keys.tolist()
    assert got["ki"].to_numpy().view(np.uint64).tolist() == item_keys.tolist()
    with np.errstate(over="ignore"):
        seeds = hash_word.interpreted(person_keys, hash_word(np.uint64(key), SEED))
        pair = hash_word.interpreted(item_keys, seeds)
    assert got["h"].to_numpy().view(np.uint64).tolist() == pair.tolist()


def test_label_keys_of_other_types_come_from_the_local_function(spark: Any) -> None:
    """Dates and doubles have no native key: an Arrow UDF runs :func:`label_keys` on them."""
    import datetime

    days = [datetime.date(2024, 1, d) for d in (1, 2, 3)]
    df = spark.createDataFrame(list(zip(days, [0.5, 1.5, 2.5], strict=True)), "p date, i double")
    got = df.select(label_key_column(df, "p"), label_key_column(df, "i")).toPandas()
    expected_p = label_keys(np.array(days, dtype=object))
    expected_i = label_keys(np.array([0.5, 1.5, 2.5]))
    assert got.iloc[:, 0].to_numpy().view(np.uint64).tolist() == expected_p.tolist()
    assert got.iloc[:, 1].to_numpy().view(np.uint64).tolist() == expected_i.tolist()


@SLOW
@given(pairs=pairs_strategy, key=st.integers(0, 2**64 - 1), ell=st.integers(1, 6))
def test_graph_weights_and_curve_equal_local(spark: Any, pairs: list, key: int, ell: int) -> None:
    persons = [f"p{p}" for p, _ in pairs]
    items = [i for _, i in pairs]
    df = _frame(spark, persons, items)
    graph = PersonItemGraph.from_pairs(persons, items)
    assert read_pairs(df, person="u", item="w") == graph
    prepared = prepare_pairs(df, "u", "w", dedupe=False)
    # Curve: identical, bit for bit, with the same key.
    local = sampling_curve(graph, ell, rng=np.random.default_rng(0))
    key0 = int(np.random.default_rng(0).integers(0, 2**64 - 1, dtype=np.uint64, endpoint=True))
    assert spark_curve(prepared, ell, key0).tolist() == local.tolist()
    # Weights of the keyed Δ0 sampling: equal to the local ones, bit for bit.
    capped = cap_contributions_keyed(
        CappedSets.from_graph(graph), graph.person_labels, graph.item_labels, ell, key
    )
    for mechanism, expected in [
        ("count_laplace", count_weights(capped)),
        ("weighted_gaussian", basic_weights(capped, 2)),
    ]:
        got = _item_vector(weights_frame(prepared, mechanism, ell, key), graph)
        assert np.array_equal(got, expected)  # bit for bit: the same summation order


@pytest.mark.parametrize("kind", ["double", "bigint"])
def test_items_keyed_locally_or_natively_equal_local(spark: Any, kind: str) -> None:
    """Doubles have no native label key (keyed by the local function before the shuffle);
    integers are keyed inside the sort: curves and weights equal the local ones either way."""
    rng = np.random.default_rng(7)
    persons = rng.integers(0, 15, 120).tolist()
    items = (rng.integers(0, 30, 120) * (0.5 if kind == "double" else 1)).tolist()
    df = spark.createDataFrame(list(zip(persons, items, strict=True)), f"u bigint, w {kind}")
    graph = PersonItemGraph.from_pairs(persons, items)
    prepared = prepare_pairs(df, "u", "w", dedupe=False)
    key = int(np.random.default_rng(0).integers(0, 2**64 - 1, dtype=np.uint64, endpoint=True))
    local = sampling_curve(graph, 5, rng=np.random.default_rng(0))
    assert spark_curve(prepared, 5, key).tolist() == local.tolist()
    capped = cap_contributions_keyed(
        CappedSets.from_graph(graph), graph.person_labels, graph.item_labels, 3, key
    )
    table = weights_frame(prepared, "weighted_gaussian", 3, key).toPandas()
    got = np.zeros(graph.n_items)
    got[np.searchsorted(graph.item_labels, table["i"].to_numpy())] = table["w"]
    assert np.array_equal(got, basic_weights(capped, 2))


def test_neighbour_audit_of_distributed_weights(spark: Any) -> None:
    """Adding one person moves the ℓ1 (resp. ℓ2) weight vector by ≤ 1; their t novel items
    weigh 1/t (resp. 1/√t): the sensitivity the thresholds assume."""
    rng = np.random.default_rng(1)
    persons = [f"p{p}" for p in rng.integers(0, 15, 120)]
    items = [f"i{i}" for i in rng.integers(0, 25, 120)]
    novel = [f"i{i}" for i in range(20, 31)]  # i25..i30 are novel
    d0 = _frame(spark, persons, items)
    d1 = _frame(spark, [*persons, *["new"] * len(novel)], items + novel)
    for mechanism, norm in [("weighted_laplace", 1), ("weighted_gaussian", 2)]:
        w0 = weights_frame(prepare_pairs(d0, "u", "w"), mechanism, 4, 77).toPandas()
        w1 = weights_frame(prepare_pairs(d1, "u", "w"), mechanism, 4, 77).toPandas()
        merged = w1.merge(w0, on="i", how="left", suffixes=("1", "0")).fillna(0.0)
        diff = (merged["w1"] - merged["w0"]).to_numpy()
        assert np.linalg.norm(diff, ord=norm) <= 1 + 1e-12
        novel = merged[~merged["i"].isin(w0["i"]) & (merged["w1"] > 0)]  # the kept novel items
        t = min(len(novel), 4)
        assert len(novel) <= t
        assert np.all(novel["w1"] <= t ** (-1 / norm) + 1e-12)


def test_sampling_release_equals_local_with_same_seed(spark: Any) -> None:
    rng = np.random.default_rng(2)
    persons = [f"p{p}" for p in rng.integers(0, 30, 300)]
    items = [int(i) for i in rng.integers(0, 80, 300)]
    graph = PersonItemGraph.from_pairs(persons, items)
    for seed in (0, 1):
        got = distinct_count(
            _frame(spark, persons, items), "u", "w", 1.0, ell_max=8, counting="sampling", rng=seed
        )
        want = dp_distinct_count(graph, 1.0, ell_max=8, counting="sampling", rng=seed)
        assert (got.estimate, got.ell) == (want.estimate, want.ell)


def test_sampling_curve_lower_bound_coverage(spark: Any) -> None:
    """The curve is a lower bound of DC(D; ℓ) ≤ #items, so P[ν̂ ≤ #items] ≥ 1 − β holds.
    With β = 0.2 over 12 fresh releases a miss-count ≥ 7 has probability < 0.005 (binomial)."""
    rng = np.random.default_rng(3)
    persons = [f"p{p}" for p in rng.integers(0, 20, 150)]
    items = [f"i{i}" for i in rng.integers(0, 60, 150)]
    df = _frame(spark, persons, items).cache()
    truth = len(set(items))
    misses = sum(
        distinct_count(df, "u", "w", 1.0, beta=0.2, ell_max=6, counting="sampling", rng=s).estimate
        > truth
        for s in range(12)
    )
    assert misses < 7


def test_item_noise_scale_and_power() -> None:
    """Empirical sd of 20 000 draws within 5 % of the scale: a false failure has probability
    < 1e-6 (sd estimate has relative sd ≈ 0.5 %, ~1 % for Laplace); a 30 % wrong scale fails."""
    keys = np.arange(20_000, dtype=np.uint64)
    for kind, sd in [("gaussian", 2.0), ("laplace", 2.0 * np.sqrt(2))]:
        z = item_noise(keys, release_key(None), kind, 2.0)
        assert abs(z.std() / sd - 1) < 0.05
        assert abs(z.std() / (1.3 * sd) - 1) > 0.05  # power: 30 % off is detected


def test_release_in_distribution(spark: Any) -> None:
    """An item of weight w is released with probability Φ((w − ρ)/σ).  Over 40 fresh keys the
    release count of an item with that probability ≈ 0.5 lies in the 99.99 % binomial range."""
    persons = [f"p{k}" for k in range(10)] * 2
    items = ["common"] * 10 + [f"own{k}" for k in range(10)]
    df = _frame(spark, persons, items).cache()
    r = set_union(
        df, "u", "w", epsilon=1.0, delta=1e-5, max_items=2, algorithm="weighted_gaussian", rng=0
    )
    local = weighted_gaussian(
        PersonItemGraph.from_pairs(persons, items), 1.0, 1e-5, max_items=2, rng=0
    )
    assert (r.mechanism, r.scale, r.threshold) == (local.mechanism, local.scale, local.threshold)
    assert r.privacy_loss == local.privacy_loss and type(r) is type(local)
    keys = [release_keys(s)[1] for s in range(400)]
    from scipy.stats import binom, norm

    weight = 10 / np.sqrt(2)
    p = norm.sf((r.threshold - weight) / r.scale)
    hits = sum(
        weight + item_noise(np.array([7], np.uint64), k, "gaussian", r.scale)[0] > r.threshold
        for k in keys
    )
    lo, hi = binom.ppf(5e-5, 400, p), binom.isf(5e-5, 400, p)
    assert lo <= hits <= hi


def test_bad_input_errors(spark: Any) -> None:
    df = _frame(spark, ["a", None, "b"], ["x", "y", "z"])
    with pytest.raises(DataError, match="column 'nope' not found"):
        read_pairs(df, person="nope", item="w")
    with pytest.raises(DataError, match="1 of 3 rows have a null"):
        read_pairs(df, person="u", item="w")
    assert read_pairs(df, person="u", item="w", drop_nulls=True).n_pairs == 2
    with pytest.raises(DataError, match="exceed the driver limit max_pairs=1"):
        read_pairs(df, person="u", item="w", drop_nulls=True, max_pairs=1)
    with pytest.raises(InvalidParameterError, match="sequential by nature"):
        set_union(df, "u", "w", epsilon=1.0, delta=1e-5, algorithm="policy_gaussian")


def test_driver_receives_no_per_pair_rows(spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    rows: list[int] = []
    real = frames.collect

    def counting_collect(df: Any) -> Any:
        table = real(df)
        rows.append(table.num_rows)
        return table

    for module in (
        "dpcount.spark.frames",
        "dpcount.spark.curve",
        "dpcount.spark.ingest",
        "mechanisms.spark.union",
        "mechanisms.spark.weights",
    ):
        monkeypatch.setattr(sys.modules[module], "collect", counting_collect)
    rng = np.random.default_rng(4)
    n_pairs, n_items = 600, 30
    persons = [f"p{p}" for p in rng.integers(0, 200, n_pairs)]
    items = [f"i{i}" for i in rng.integers(0, n_items, n_pairs)]
    df = _frame(spark, persons, items).cache()
    for algorithm in ("dp_sips", "weighted_gaussian"):  # the default (R rounds), one round
        set_union(df, "u", "w", epsilon=1.0, delta=1e-5, max_items=3, algorithm=algorithm, rng=1)
    distinct_count(df, "u", "w", 1.0, ell_max=5, counting="sampling", rng=1)
    assert rows and max(rows) <= n_items


def test_cli_engine_spark_matches_local(spark: Any, tmp_path: Any, capsys: Any) -> None:
    from dpcount.cli import main

    rng = np.random.default_rng(5)
    path = tmp_path / "pairs.parquet"
    pd.DataFrame(
        {"person": [f"u{i}" for i in rng.integers(0, 50, 400)], "item": rng.integers(0, 90, 400)}
    ).to_parquet(path)
    common = ["count", str(path), "--counting", "sampling", "--ell-max", "6", "--seed", "2"]
    outputs = []
    for extra in ([], ["--engine", "spark"]):
        assert main([*common, *extra, "--json"]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0]["estimate"] == outputs[1]["estimate"]
    assert main(["union", str(path), "--engine", "spark", "--algorithm", "policy_laplace"]) != 0
    assert "sequential by nature" in capsys.readouterr().err


def test_dp_sips_rounds_remove_released_items(spark: Any) -> None:
    persons = [f"u{k}" for k in range(60)] * 2 + ["solo"]
    items = ["a"] * 60 + ["b"] * 60 + ["rare"]
    r = set_union(
        _frame(spark, persons, items),
        "u",
        "w",
        epsilon=1.0,
        delta=1e-6,
        max_items=2,
        algorithm="dp_sips",
        rng=0,
    )
    local = dp_sips(PersonItemGraph.from_pairs(persons, items), 1.0, 1e-6, max_items=2, rng=0)
    assert [(x.scale, x.threshold) for x in r.rounds] == [
        (x.scale, x.threshold) for x in local.rounds
    ]
    assert r.privacy_loss == local.privacy_loss
    assert r.items.tolist() == ["a", "b"] and sum(x.released for x in r.rounds) == 2


@pytest.mark.filterwarnings("ignore::dpcount.errors.UnsafeNoiseWarning")  # MAD is float-only
def test_mad_weights_equal_local(spark: Any) -> None:
    rng = np.random.default_rng(6)
    persons = [f"p{p}" for p in rng.integers(0, 25, 300)]
    items = [f"i{i}" for i in np.minimum(rng.geometric(0.08, 300), 60)]
    graph = PersonItemGraph.from_pairs(persons, items)
    capped = cap_contributions_keyed(
        CappedSets.from_graph(graph), graph.person_labels, graph.item_labels, 6, 11
    )
    for d_max, tau in [(3, 2.0), (6, 0.5)]:
        expected = mad_weights(capped, d_max, tau)
        frame = mad_weights_frame(
            prepare_pairs(_frame(spark, persons, items), "u", "w"), 6, 11, d_max, tau
        )
        got = _item_vector(frame, graph)
        assert expected.max() > tau  # the truncation and rerouting are exercised
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    r = set_union(
        _frame(spark, persons, items),
        "u",
        "w",
        epsilon=1.0,
        delta=1e-6,
        max_items=6,
        algorithm="max_adaptive_degree",
        rng=0,
    )
    local = max_adaptive_degree(graph, 1.0, 1e-6, max_items=6, rng=0)
    assert (r.scale, r.threshold, r.cutoff) == (local.scale, local.threshold, local.cutoff)
    assert r.privacy_loss == local.privacy_loss


def test_same_seed_keeps_the_same_subsets_as_local_keyed_sampling(spark: Any) -> None:
    """Local ``sampling="keyed"`` and Spark with the same seed keep the same Δ0 subsets, so the
    pre-noise weights agree bit for bit."""
    rng = np.random.default_rng(9)
    persons = [f"p{p}" for p in rng.integers(0, 20, 250)]
    items = [f"i{i}" for i in np.minimum(rng.geometric(0.1, 250), 40)]
    graph = PersonItemGraph.from_pairs(persons, items)
    df = _frame(spark, persons, items).cache()
    for mechanism, local_fn in [
        ("count_laplace", count_laplace),
        ("weighted_gaussian", weighted_gaussian),
    ]:
        common = {"max_items": 3, "rng": 5, "return_weights": True}
        got = set_union(df, "u", "w", epsilon=1.0, delta=1e-5, algorithm=mechanism, **common)
        want = local_fn(graph, 1.0, 1e-5, sampling="keyed", **common)
        assert np.array_equal(got.weights, want.weights)
        other = local_fn(graph, 1.0, 1e-5, **{**common, "rng": 6}, sampling="keyed")
        assert not np.array_equal(other.weights, want.weights)  # the seed matters
