"""The tokenizer, n-grams and the in-memory n-gram graph."""

from __future__ import annotations

import string
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpcount import DataError, InvalidParameterError
from dpcount.io import ngram_graph, ngrams, tokenize

_ALNUM = set(string.ascii_lowercase + string.digits)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Hello, World!", ["hello", "world"]),
        ("  multiple   spaces\tand\nnewlines ", ["multiple", "spaces", "and", "newlines"]),
        ("don't stop-me now", ["don", "t", "stop", "me", "now"]),
        ("Café Zoë naïve", ["caf", "zo", "na", "ve"]),  # non-ASCII letters separate tokens
        ("abc123 4th", ["abc123", "4th"]),
        ("日本語 text", ["text"]),
        ("\u212a", ["k"]),  # the Kelvin sign lower-cases to an ASCII k
        ("İstanbul", ["i", "stanbul"]),  # "İ".lower() is "i" plus a combining dot
        ("", []),
        ("...", []),
    ],
)
def test_tokenize_examples(text, tokens):
    assert tokenize(text) == tokens


@given(st.text())
def test_tokens_are_the_ascii_alphanumerics_in_order(text):
    tokens = tokenize(text)
    assert all(token and set(token) <= _ALNUM for token in tokens)
    assert "".join(tokens) == "".join(c for c in text.lower() if c in _ALNUM)


@pytest.mark.parametrize("bad", [None, 3, b"bytes"])
def test_tokenize_rejects_non_strings(bad):
    with pytest.raises(DataError, match="strings"):
        tokenize(bad)


@given(st.lists(st.sampled_from(["a", "b", "c"]), max_size=8), st.sampled_from([1, 2, 3]))
def test_ngrams_are_windows(tokens, n):
    grams = ngrams(tokens, n)
    assert len(grams) == max(0, len(tokens) - n + 1)
    for k, gram in enumerate(grams):
        assert gram.split(" ") == tokens[k : k + n]


@pytest.mark.parametrize("n", [0, 4, -1, True, "2", 1.5])
def test_ngram_length_checked(n):
    with pytest.raises(InvalidParameterError, match="n-gram length"):
        ngrams(["a"], n)
    with pytest.raises(InvalidParameterError):
        ngram_graph(["p"], ["a"], n=n)


_texts = st.text(alphabet=st.sampled_from(list("ab cAB.é")), max_size=12)


@given(
    st.lists(st.tuples(st.sampled_from(["p", "q", "r"]), _texts), max_size=8),
    st.sampled_from([1, 2, 3]),
)
def test_ngram_graph_counts_uses(rows, n):
    persons = [p for p, _ in rows]
    texts = [t for _, t in rows]
    g = ngram_graph(persons, texts, n=n)
    expected: Counter = Counter()
    for person, text in rows:
        words = tokenize(text)
        for k in range(len(words) - n + 1):
            expected[(person, " ".join(words[k : k + n]))] += 1
    got = {}
    ps, items = g.pairs()
    for p, i, c in zip(ps, items, g.counts, strict=True):
        got[(str(g.person_labels[p]), str(g.item_labels[i]))] = int(c)
    assert got == dict(expected)
    assert g.person_labels.tolist() == sorted(set(persons))  # persons without n-grams stay


def test_ngram_graph_errors():
    with pytest.raises(DataError, match="differ in length"):
        ngram_graph(["a", "b"], ["x"])
    with pytest.raises(DataError, match="strings"):
        ngram_graph(["a"], [None])
    with pytest.raises(DataError, match="null"):
        ngram_graph([None], ["x"])


def test_ngram_graph_empty_and_textless():
    g = ngram_graph([], [])
    assert (g.n_persons, g.n_items) == (0, 0)
    g = ngram_graph(["a", "b"], ["", "!!"])
    assert (g.n_persons, g.n_items, g.counts.tolist()) == (2, 0, [])


def test_ngram_graph_accepts_iterators():
    g = ngram_graph(iter([1, 2]), (t for t in ["x y", "y"]), n=1)
    assert g.person_labels.tolist() == [1, 2]
    assert g.counts.tolist() == [1, 1, 1]


def test_facade_names():
    import dpcount
    import dpcount.io

    assert dpcount.tokenize("A b") == ["a", "b"]
    assert dpcount.read_pairs is dpcount.io.read_pairs
    assert dpcount.read_texts is dpcount.io.read_texts
