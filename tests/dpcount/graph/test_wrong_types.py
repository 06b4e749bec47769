"""Wrong input types get one-line errors of dpcount's own (issue 24): before, a DataFrame with
two columns of one name, ``from_sets(list)`` and unhashable keys raised raw Python errors, and
a string where a sequence belongs was split into letters."""

from __future__ import annotations

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

from dpcount import PersonItemGraph, read_pairs
from dpcount.errors import DataError, InvalidParameterError
from dpcount.graph import GroupedGraph
from dpcount.validation import check_keys


@pytest.mark.parametrize(
    "table",
    [
        lambda: pd.DataFrame([[1, "a", "b"]], columns=["person", "item", "item"]),
        lambda: pa.table([[1], ["a"], ["b"]], names=["person", "item", "item"]),
        lambda: duckdb.sql("SELECT 1 AS person, 'a' AS item, 'b' AS item"),
    ],
    ids=["pandas", "arrow", "duckdb"],
)
def test_a_table_with_two_columns_of_one_name_is_refused(table):
    with pytest.raises(DataError, match="has several columns named 'item'"):
        read_pairs(table())


def test_a_grouped_table_with_repeated_names_is_refused():
    frame = pd.DataFrame([[1, "g", "h", "a"]], columns=["person", "group", "group", "item"])
    with pytest.raises(DataError, match="several columns named 'group'"):
        GroupedGraph.from_dataframe(frame, "person", "group", "item")


def test_from_sets_takes_a_mapping():
    with pytest.raises(InvalidParameterError, match=r"from_sets takes a mapping .* got a list"):
        PersonItemGraph.from_sets([["a"], ["b"]])


def test_a_string_is_not_split_into_letters():
    with pytest.raises(DataError, match="not one string \\('abc' would be split into letters\\)"):
        PersonItemGraph.from_sets({1: "abc"})
    with pytest.raises(DataError, match="would be split into letters"):
        PersonItemGraph.from_pairs("ab", ["x", "y"])
    g = PersonItemGraph.from_pairs([1], ["a"])
    with pytest.raises(DataError, match="would be split into letters"):
        g.with_person(2, "abc")
    grouped = GroupedGraph.from_triples([1, 2], ["a", "b"], [5, 6])
    with pytest.raises(InvalidParameterError, match="would be split into letters"):
        grouped.select_groups("ab")
    assert grouped.select_groups(["ab"]).n_groups == 0  # the listed form: one key, not found


def test_unhashable_labels_are_refused_in_words():
    with pytest.raises(DataError, match=r"hashable labels .* got a list value"):
        PersonItemGraph.from_pairs([1, 2], [["x"], ["y"]])
    grouped = GroupedGraph.from_triples([1, 2], ["a", "b"], [5, 6])
    with pytest.raises(InvalidParameterError, match="hashable labels"):
        grouped.select_groups([["a"]])


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("abc", "split into letters"),
        ([{"a"}], "hashable"),
        (5, "got a int value"),
        (b"ab", "one string"),
    ],
)
def test_check_keys_refuses(value, message):
    with pytest.raises(InvalidParameterError, match=message):
        check_keys(value, "groups")


def test_the_grouped_count_refuses_a_string_of_groups():
    from mechanisms.grouped_counts import grouped_distinct_count

    grouped = GroupedGraph.from_triples([1, 2], ["a", "b"], [5, 6])
    for groups, message in (("ab", "split into letters"), ([["a"]], "hashable")):
        with pytest.raises(InvalidParameterError, match=message):
            grouped_distinct_count(grouped, 1.0, max_groups=1, groups=groups, rng=0)


def test_a_huge_max_groups_is_refused_in_one_line():
    """A 400-digit ``max_groups`` ended in ``OverflowError``."""
    from mechanisms.grouped_counts import grouped_distinct_count

    grouped = GroupedGraph.from_triples([1, 2], ["a", "b"], [5, 6])
    for huge, shown in ((10**400, "a 401-digit integer"), (2**31, "2147483648")):
        with pytest.raises(
            InvalidParameterError, match=f"max_groups must be at most 2147483647, got {shown}$"
        ):
            grouped_distinct_count(grouped, 1.0, max_groups=huge, groups=["a"], rng=0)
