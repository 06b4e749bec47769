"""Deprecated path: ``dpcount.text`` moved to :mod:`dpcount.io.tokens`.

This shim keeps old imports working for one release and warns once.
"""

from __future__ import annotations

import warnings

from dpcount.io.tokens import (  # noqa: F401
    NGRAM_SIZES,
    TOKEN_PATTERN,
    ngram_graph,
    ngrams,
    tokenize,
)

warnings.warn(
    "dpcount.text moved to dpcount.io.tokens; import it from there "
    "(this path goes in the next release)",
    DeprecationWarning,
    stacklevel=2,
)
