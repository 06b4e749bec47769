"""Defaults shared by every mechanism.

``DEFAULT_BETA`` = 0.05 is the failure probability of every accuracy statement (a lower bound
holds with probability ≥ 1 − β): the conventional 95% confidence level, and the β of
Knop & Steinke's experiments (Figure 2 and Table 1, which run the shifted inverse at 0.05 too).
The R2T and shifted-inverse reference scripts use 0.1; one default for every mechanism keeps
their outputs comparable, so pass ``beta=0.1`` to reproduce those scripts.

Examples
--------
>>> DEFAULT_BETA
0.05
"""

from __future__ import annotations

__all__ = ["DEFAULT_BETA"]

#: The failure probability β every mechanism uses unless told otherwise (see above).
DEFAULT_BETA = 0.05
