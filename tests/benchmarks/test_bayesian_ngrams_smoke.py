"""Smoke run of benchmarks/bayesian_ngrams.py at tiny sizes (so the script cannot rot)."""

from __future__ import annotations

import math

import numpy as np

from benchmarks import bayesian_ngrams


def test_smoke_run_writes_table_and_figure(tmp_path):
    assert bayesian_ngrams.main(["--smoke", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "bayesian_ngrams.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| 0")]
    assert len(rows) == 4  # 2 mismatches × 2 values of ε
    for row in rows:
        values = [float(x) for x in row.strip("|").split("|")[2:]]
        assert len(values) == len(bayesian_ngrams.MECHANISMS)
        assert all(math.isfinite(v) and v >= 0 for v in values)
    assert "milliseconds" in text and "worst-case" in text
    assert (tmp_path / "bayesian_ngrams.png").stat().st_size > 1000


def test_generated_corpus_has_the_promised_shape():
    corpus = bayesian_ngrams.generate_corpus(50, 60, mismatch=0.5, seed=1)
    labels, counts = corpus.public
    assert corpus.graph.counts is not None and corpus.graph.n_persons == 50
    assert labels.size == counts.size == corpus.truth.size and np.all(counts > 0)
    assert math.isclose(corpus.truth.sum(), 1.0)
    assert any(str(x).startswith("x") for x in corpus.graph.item_labels)  # private-only n-grams
