"""Keyed hashes and counter-based noise, identical on Spark executors and in local NumPy.

Two functions of labels only (never of codes, which depend on the rest of the data):

* the **pair hash** ``mix(mix(key(person) ^ k) ^ key(item))`` of
  :func:`dpcount._hashing.keyed_pair_ranks` (SplitMix64's finaliser, Steele, Lea & Flood
  2014, over :func:`dpcount._hashing.label_keys`).  Each person ranks its items by it: the
  nested per-person samples of the sampling curve (Knop & Steinke 2023, §4.2) and the Δ0
  sampling of set union (Gopi et al. 2020, Algorithm 2, "for distributed runs").  Executors run
  the very same NumPy code inside Arrow (pandas) UDFs, so ranks equal the local ones bit for
  bit.  Spark has no unsigned 64-bit type: the hash is stored as ``h XOR 2⁶³`` reinterpreted as
  a signed long, whose signed order is the unsigned order of ``h``.
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
from typing import Any

import numpy as np

from dpcount._hashing import _mix, label_keys
from dpcount._rng import RNGLike, spawn

__all__ = ["flip", "item_noise", "pair_hash", "release_key", "unflip"]

_SIGN = np.uint64(1 << 63)


def flip(h: np.ndarray) -> np.ndarray:
    """uint64 → int64 whose signed order is the unsigned order of ``h``.

    Examples
    --------
    >>> import numpy as np
    >>> flip(np.array([0, 2**63, 2**64 - 1], dtype=np.uint64)).tolist()
    [-9223372036854775808, 0, 9223372036854775807]
    """
    return (np.asarray(h, dtype=np.uint64) ^ _SIGN).view(np.int64)


def unflip(x: np.ndarray) -> np.ndarray:
    """Inverse of :func:`flip`.

    Examples
    --------
    >>> import numpy as np
    >>> unflip(flip(np.array([5], dtype=np.uint64))).tolist()
    [5]
    """
    return np.asarray(x, dtype=np.int64).view(np.uint64) ^ _SIGN


def pair_hash(person_labels: Any, item_labels: Any, key: int) -> np.ndarray:
    """The keyed pair hash (uint64) of each (person, item) label pair.

    Examples
    --------
    >>> import numpy as np
    >>> h = pair_hash(np.array(["p", "p"]), np.array(["a", "b"]), 3)
    >>> h.dtype.name, bool(h[0] != h[1])
    ('uint64', True)
    """
    pk = _mix(label_keys(np.asarray(person_labels)) ^ np.uint64(key))
    return _mix(pk ^ label_keys(np.asarray(item_labels)))


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
