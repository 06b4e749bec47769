"""Keyed hashes and counter-based noise, identical on Spark executors and in local NumPy.

Two functions of labels only (never of codes, which depend on the rest of the data):

* the **pair hash** of :mod:`dpcount.common.hashing` — XXH64 chained over the key and the two label
  keys, which is Spark's own ``xxhash64(key, xxhash64(person), xxhash64(item))`` — evaluated
  in the JVM (:func:`pair_hash`).  Each person ranks its items by it, read as a signed
  long: the nested per-person samples of the sampling curve (Knop & Steinke 2023, §4.2) and the
  Δ0 sampling of set union (Gopi et al. 2020, Algorithm 2, "for distributed runs").  Ranks
  equal the local ones bit for bit.
* the **item noise**: keyed BLAKE2b (a PRF) of the item's label key under a secret 256-bit
  per-release key gives two 53-bit uniforms per item; Laplace by inverse CDF, Gaussian by
  Box–Muller.  Noise is thus a counter-based stream keyed by item: independent across items,
  independent of partitioning, fresh per release (the key comes from OS entropy unless a seed
  is given).  Like the local samplers it is floating-point noise (Mironov 2012 applies).

Examples
--------
>>> import numpy as np
>>> keys = np.array([1, 2, 3], dtype=np.uint64)
>>> z = item_noise(keys, bytes(32), "gaussian", 1.0)
>>> bool(np.array_equal(z, item_noise(keys, bytes(32), "gaussian", 1.0)))
True
>>> bool(np.array_equal(z, item_noise(keys, bytes([1]) * 32, "gaussian", 1.0)))
False
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from typing import Any

import numpy as np

from dpcount.common.hashing import label_keys
from dpcount.common.rng import RNGLike, spawn

__all__ = [
    "as_long",
    "item_noise",
    "label_key_column",
    "native_label_key",
    "pair_hash",
    "release_key",
]


def as_long(value: int) -> int:
    """A 64-bit unsigned value as the signed long with the same bits (Spark has no uint64).

    Examples
    --------
    >>> as_long(5), as_long(2**64 - 1)
    (5, -1)
    """
    value = int(value)
    return value - (1 << 64) if value >= 1 << 63 else value


def native_label_key(kind: Any) -> Callable[[Any], Any] | None:
    """The label key of values of Spark type ``kind`` as a JVM expression of a column, or None.

    Native ``xxhash64`` for strings, integers and booleans (as bigint), usable anywhere,
    inside higher-order functions too; other types have no native form.
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if isinstance(kind, T.StringType):
        return F.xxhash64
    if isinstance(kind, T.IntegralType | T.BooleanType):
        return lambda values: F.xxhash64(values.cast("long"))
    return None


def label_key_column(frame: Any, column: str) -> Any:
    """The label key (:func:`dpcount.common.hashing.label_keys`) of ``frame[column]`` as a long
    column.

    Natively where :func:`native_label_key` can; other types through an Arrow UDF running the
    local function, which hashes them by type name and ``repr``.
    """
    import pandas as pd
    from pyspark.sql import functions as F

    native = native_label_key(frame.schema[column].dataType)
    if native is not None:
        return native(F.col(column))

    def keys(values: pd.Series) -> pd.Series:
        return pd.Series(label_keys(values.to_numpy()).view(np.int64))

    # PySpark reads the UDF's kind from its type hints, which this module's postponed
    # annotations leave as strings naming a local import: give it the classes themselves.
    keys.__annotations__ = {"values": pd.Series, "return": pd.Series}
    return F.pandas_udf(keys, "long")(column)  # type: ignore[call-overload]


def pair_hash(key: int, person_key: Any, item_key: Any) -> Any:
    """The keyed pair hash from two label-key columns, a long column.

    Equal, bit for bit, to the local hash that :func:`dpcount.common.hashing.keyed_pair_ranks`
    ranks by: Spark's ``xxhash64`` chains its arguments through the seed exactly so.
    """
    from pyspark.sql import functions as F

    return F.xxhash64(F.lit(as_long(key)).cast("long"), person_key, item_key)


def release_key(rng: RNGLike) -> bytes:
    """A secret 256-bit noise key: OS entropy for ``None``, else derived from ``rng``.

    Examples
    --------
    >>> release_key(1) == release_key(1), len(release_key(None))
    (True, 32)
    """
    if rng is None:
        return secrets.token_bytes(32)
    return spawn(rng, 1)[0].bytes(32)


def _uniforms(digest: bytes) -> np.ndarray:
    """Two uniforms in (0, 1) from 16 digest bytes (53 bits each, offset by half a step)."""
    words = np.frombuffer(digest, dtype="<u8")
    return ((words >> np.uint64(11)).astype(np.float64) + 0.5) * 2.0**-53


def item_noise(item_keys: np.ndarray, key: bytes, kind: str, scale: float) -> np.ndarray:
    """Laplace(scale) or N(0, scale²) noise per item, a function of (key, item key) only.

    Examples
    --------
    >>> import numpy as np
    >>> z = item_noise(np.arange(20000, dtype=np.uint64), bytes(32), "laplace", 2.0)
    >>> bool(abs(z.mean()) < 0.1), bool(abs(np.abs(z).mean() - 2.0) < 0.1)
    (True, True)
    """
    item_keys = np.asarray(item_keys, dtype=np.uint64)
    digests = b"".join(
        hashlib.blake2b(k, key=key, digest_size=16).digest() for k in _chunks(item_keys)
    )
    u = _uniforms(digests).reshape(-1, 2)
    if kind == "laplace":  # inverse CDF: sign from u0, magnitude −b·ln u1 (Exp(1/b))
        return np.where(u[:, 0] < 0.5, -1.0, 1.0) * (-scale * np.log(u[:, 1]))
    # Box–Muller: √(−2 ln u0)·cos(2π u1) is standard normal.
    return scale * np.sqrt(-2.0 * np.log(u[:, 0])) * np.cos(2.0 * np.pi * u[:, 1])


def _chunks(item_keys: np.ndarray) -> list[bytes]:
    """The little-endian 8 bytes of each key."""
    raw = item_keys.astype("<u8").tobytes()
    return [raw[i : i + 8] for i in range(0, len(raw), 8)]
