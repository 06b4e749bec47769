"""Private n-gram distributions with a public prior (Ramadan, Withers & Orr).

Release a probability distribution over a **public** vocabulary of n-grams from per-person
n-gram counts (a :class:`dpcount.PersonItemGraph` with ``counts``):

=============================  ============================================================
function                       what
=============================  ============================================================
``bayesian_dp``                BayesianDP (Alg. 1): Gaussian prior from public counts in log
                               space, word-wise clipping, Gaussian noise, softmax
``end_to_end_dp``              EndToEndDP (Alg. 2): Laplace noisy-min over a (S, ρ) grid on a
                               tuning split, then ``bayesian_dp`` on the rest
``laplace_ngrams``             §4.2 baseline 1: capped counts + Laplace (worst-case ε-DP)
``laplace_ngrams_public``      §4.2 baseline 2: Laplace on normalised counts around public ones
``kl_divergence``              KL(p ‖ q) for evaluation
``perplexity``                 perplexity of held-out counts under a released distribution
=============================  ============================================================

**Guarantee.**  The Bayesian mechanisms calibrate their noise to a sensitivity computed from
the data (the maximum over the persons present, or Claim 1's data-dependent bound).  That is a
*local* sensitivity: the recorded (ε, δ) is nominal, **not** a worst-case differential-privacy
guarantee.  They warn :class:`~dpcount.errors.PrivacyLeakWarning` and record
``guarantee="local sensitivity (not worst-case DP)"``.  Only ``laplace_ngrams`` is ε-DP in the
worst case.  See docs/algorithms.md §7.

Examples
--------
>>> import warnings
>>> from dpcount import PersonItemGraph
>>> from mechanisms.bayesian_ngrams import bayesian_dp, kl_divergence
>>> g = PersonItemGraph.from_sets({f"u{k}": {"hi there": 2, "oh no": 1} for k in range(300)})
>>> public = {"hi there": 50, "oh no": 40, "so what": 10}
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     r = bayesian_dp(g, public, epsilon=0.5, delta=1e-6, clip_slope=1.0, max_count=2,
...                     private_weight=0.9, rng=0)
>>> kl_divergence([600, 300, 0], r.probabilities) < kl_divergence([600, 300, 0], [5, 4, 1])
True
"""

from mechanisms.bayesian_ngrams._data import PublicCounts
from mechanisms.bayesian_ngrams.bayesian import bayesian_dp
from mechanisms.bayesian_ngrams.laplace import laplace_ngrams, laplace_ngrams_public
from mechanisms.bayesian_ngrams.metrics import kl_divergence, perplexity
from mechanisms.bayesian_ngrams.result import (
    LOCAL_SENSITIVITY,
    WORST_CASE,
    BayesianDPResult,
    LaplaceNgramResult,
    TuningReport,
)
from mechanisms.bayesian_ngrams.tuning import end_to_end_dp, noisy_argmin_probabilities

__all__ = [
    "LOCAL_SENSITIVITY",
    "WORST_CASE",
    "BayesianDPResult",
    "LaplaceNgramResult",
    "PublicCounts",
    "TuningReport",
    "bayesian_dp",
    "end_to_end_dp",
    "kl_divergence",
    "laplace_ngrams",
    "laplace_ngrams_public",
    "noisy_argmin_probabilities",
    "perplexity",
]
