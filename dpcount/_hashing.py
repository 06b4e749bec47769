"""Deprecated path: ``dpcount._hashing`` moved to :mod:`dpcount.common.hashing`.

This shim keeps old imports working for one release and warns once.
"""

from __future__ import annotations

import warnings

from dpcount.common.hashing import (  # noqa: F401
    SEED,
    hash_word,
    keyed_pair_ranks,
    label_keys,
    string_hashes,
)

warnings.warn(
    "dpcount._hashing moved to dpcount.common.hashing; import it from there "
    "(this path goes in the next release)",
    DeprecationWarning,
    stacklevel=2,
)
