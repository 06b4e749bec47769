"""Keyed 64-bit hashes of labels and of (person, item) pairs: XXH64, as Spark's ``xxhash64``.

A person's items are put in a random order by a keyed hash of (key, person label, item label):
the order of one person depends only on the key and on that person's own labels, so adding or
removing a person leaves every other person's order unchanged.  Used by the sampling baseline
(:mod:`matching.sampling`), Δ0 sampling in set union, group bounding in
:class:`dpcount.GroupedGraph` and ``dpcount.spark``.

The hash is XXH64 (Collet, xxHash specification), chosen because Spark computes it natively
(``xxhash64``, seed 42), so a Spark job evaluates the same hash per row in the JVM:

* the **label key** of a label is XXH64 with seed 42 of its bytes: the UTF-8 bytes of a string,
  the 8 little-endian bytes of an integer (or boolean) as a 64-bit integer — Spark's
  ``xxhash64(label)`` for string and bigint columns.  Other labels get BLAKE2b of their type
  name and ``repr``;
* the **pair hash** chains XXH64 over 8-byte words, ``h = w(item key, w(person key, w(key,
  42)))`` with ``w(x, seed)`` the XXH64 of the word ``x`` — Spark's ``xxhash64(key, person key,
  item key)`` on bigint columns.  Pairs are ranked by ``h`` read as a *signed* 64-bit integer,
  as Spark orders longs.

XXH64 is statistically uniform, not cryptographic; privacy never rests on it (any fixed
function of a person's own labels keeps neighbours independent).

Examples
--------
>>> import numpy as np
>>> bool(label_keys(np.array(["x"]))[0] == label_keys(np.array(["x", "y"]))[0])
True
>>> hex(int(label_keys(np.array([""]))[0]))  # XXH64 of no bytes with seed 42
'0x98b1582b0977e704'
"""

from __future__ import annotations

import hashlib

import numpy as np

from dpcount.common.jit import SMALL_PAIRS, kernel

__all__ = ["SEED", "hash_word", "keyed_pair_ranks", "label_keys"]

#: The seed of Spark's ``xxhash64``.
SEED = np.uint64(42)
# The five primes of the XXH64 specification.
_P1 = np.uint64(0x9E3779B185EBCA87)
_P2 = np.uint64(0xC2B2AE3D27D4EB4F)
_P3 = np.uint64(0x165667B19E3779F9)
_P4 = np.uint64(0x85EBCA77C2B2AE63)
_P5 = np.uint64(0x27D4EB2F165667C5)
# Flips the sign bit: the unsigned order of h ^ 2⁶³ is the signed order of h.
_SIGN = np.uint64(1 << 63)


@kernel("(uint64, uint64)")
def _rotl(x: np.uint64, r: np.uint64) -> np.uint64:
    """Rotate left by ``r`` bits (0 < r < 64)."""
    return (x << r) | (x >> (np.uint64(64) - r))


@kernel("(uint64, uint64)")
def _round(acc: np.uint64, lane: np.uint64) -> np.uint64:
    """XXH64's round: one 8-byte lane into an accumulator."""
    return _rotl(acc + lane * _P2, np.uint64(31)) * _P1


@kernel("(uint64,)")
def _avalanche(h: np.uint64) -> np.uint64:
    """XXH64's final mix."""
    h = (h ^ (h >> np.uint64(33))) * _P2
    h = (h ^ (h >> np.uint64(29))) * _P3
    return h ^ (h >> np.uint64(32))


@kernel("(uint64, uint64)")
def hash_word(word: np.uint64, seed: np.uint64) -> np.uint64:
    """XXH64 of the 8 little-endian bytes of ``word`` (Spark's hash of a bigint).

    ``hash_word.interpreted`` applies it elementwise to uint64 arrays.

    Examples
    --------
    >>> import numpy as np
    >>> hex(int(hash_word(np.uint64(1), SEED)))
    '0x9ed50fd59358d232'
    """
    h = seed + _P5 + np.uint64(8)
    h = _rotl(h ^ _round(np.uint64(0), word), np.uint64(27)) * _P1 + _P4
    return _avalanche(h)


@kernel("(ro(uint8[:]), int64, int64)")
def _read_le(data: np.ndarray, start: int, n_bytes: int) -> np.uint64:
    """``n_bytes`` bytes from ``start`` as a little-endian unsigned integer."""
    value = np.uint64(0)
    for k in range(n_bytes):
        value |= np.uint64(data[start + k]) << np.uint64(8 * k)
    return value


@kernel("(ro(uint8[:]), int64, int64, uint64)")
def _hash_bytes(data: np.ndarray, start: int, end: int, seed: np.uint64) -> np.uint64:
    """XXH64 of ``data[start:end]`` (the specification's one-shot algorithm)."""
    pos, n = start, end - start
    if n >= 32:  # four accumulators over 32-byte stripes
        v1, v2 = seed + _P1 + _P2, seed + _P2
        v3, v4 = seed, seed - _P1
        while pos + 32 <= end:
            v1 = _round(v1, _read_le(data, pos, 8))
            v2 = _round(v2, _read_le(data, pos + 8, 8))
            v3 = _round(v3, _read_le(data, pos + 16, 8))
            v4 = _round(v4, _read_le(data, pos + 24, 8))
            pos += 32
        h = _rotl(v1, np.uint64(1)) + _rotl(v2, np.uint64(7))
        h += _rotl(v3, np.uint64(12)) + _rotl(v4, np.uint64(18))
        for v in (v1, v2, v3, v4):
            h = (h ^ _round(np.uint64(0), v)) * _P1 + _P4
    else:
        h = seed + _P5
    h += np.uint64(n)
    while pos + 8 <= end:
        h = _rotl(h ^ _round(np.uint64(0), _read_le(data, pos, 8)), np.uint64(27)) * _P1 + _P4
        pos += 8
    if pos + 4 <= end:
        h = _rotl(h ^ (_read_le(data, pos, 4) * _P1), np.uint64(23)) * _P2 + _P3
        pos += 4
    while pos < end:
        h = _rotl(h ^ (np.uint64(data[pos]) * _P5), np.uint64(11)) * _P1
        pos += 1
    return _avalanche(h)


@kernel("(ro(int64[:]), ro(uint8[:]), uint64)", interpret_below=SMALL_PAIRS)
def _hash_strings(offsets: np.ndarray, data: np.ndarray, seed: np.uint64) -> np.ndarray:
    """XXH64 of each byte string ``data[offsets[k]:offsets[k + 1]]``."""
    out = np.empty(offsets.size - 1, dtype=np.uint64)
    for k in range(out.size):
        out[k] = _hash_bytes(data, offsets[k], offsets[k + 1], seed)
    return out


def string_hashes(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """XXH64 (seed 42) of each byte string ``data[offsets[k]:offsets[k + 1]]``, compiled: the
    label keys of strings laid out as Arrow lays them out (int64 offsets, UTF-8 bytes).

    Examples
    --------
    >>> import numpy as np
    >>> keys = string_hashes(np.array([0, 1, 1], np.int64), np.frombuffer(b"x", np.uint8))
    >>> bool(keys[0] == label_keys(np.array(["x"]))[0]), hex(int(keys[1]))
    (True, '0x98b1582b0977e704')
    """
    return _hash_strings(offsets, data, SEED)


def _utf8(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, bytes) of the labels' UTF-8 encodings, concatenated (Arrow's string layout).

    Lone surrogates, which no file or Spark string can hold, are encoded as UTF-8 would encode
    the code point ("surrogatepass"), so every Python string gets a key.
    """
    import pyarrow as pa

    try:
        array = pa.array(labels, type=pa.large_string())
        offsets = np.frombuffer(array.buffers()[1], dtype=np.int64, count=len(array) + 1)
        data = np.frombuffer(array.buffers()[2] or b"", dtype=np.uint8)
        return offsets - offsets[0], data[offsets[0] :]
    except (pa.ArrowException, UnicodeError):
        encoded = [s.encode("utf-8", "surrogatepass") for s in labels.tolist()]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        return offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8)


def label_keys(labels: np.ndarray) -> np.ndarray:
    """A stable 64-bit key per label that depends on the label only (not on its neighbours).

    XXH64 (seed 42) of a string's UTF-8 bytes or of an integer's 8 bytes, as Spark's
    ``xxhash64`` computes it; other labels get BLAKE2b of their type name and ``repr``.

    Examples
    --------
    >>> import numpy as np
    >>> a = label_keys(np.array(["x", "yy"]))
    >>> b = label_keys(np.array(["a-much-longer-label", "x"]))
    >>> bool(a[0] == b[1]), bool(label_keys(np.array([1]))[0] == label_keys(np.array(["1"]))[0])
    (True, False)
    """
    labels = np.asarray(labels)
    if labels.dtype.kind == "O" and labels.size:
        if all(isinstance(x, str) for x in labels):
            labels = labels.astype(str)
        elif all(isinstance(x, int | np.integer) and -(2**63) <= x < 2**63 for x in labels):
            labels = labels.astype(np.int64)
    if labels.dtype.kind == "U":
        offsets, data = _utf8(labels)
        with np.errstate(over="ignore"):  # interpreted, uint64 arithmetic wraps as compiled does
            return _hash_strings.select(data.size)(offsets, data, SEED)
    if labels.dtype.kind in "iub":
        words = labels.astype(np.int64).view(np.uint64)
        return hash_word.interpreted(words, SEED)  # elementwise over the array
    digests = [
        hashlib.blake2b(f"{type(x).__name__}:{x!r}".encode(), digest_size=8).digest()
        for x in labels.tolist()
    ]
    return np.frombuffer(b"".join(digests), dtype=np.uint64).copy()


@kernel("(ro(int64[:]), ro(int32[:]), ro(uint64[:]), ro(uint64[:]))", interpret_below=SMALL_PAIRS)
def _ranks_kernel(
    indptr: np.ndarray, indices: np.ndarray, person_seeds: np.ndarray, item_keys: np.ndarray
) -> np.ndarray:
    """Per pair, its rank among its person's items by the signed pair hash (ties: item id)."""
    ranks = np.empty(indices.size, dtype=np.int64)
    for p in range(indptr.size - 1):
        start, end = indptr[p], indptr[p + 1]
        keys = np.empty(end - start, dtype=np.uint64)
        for q in range(start, end):
            keys[q - start] = hash_word(item_keys[indices[q]], person_seeds[p]) ^ _SIGN
        order = np.argsort(keys, kind="mergesort")
        for r in range(order.size):
            ranks[start + order[r]] = r
    return ranks


def keyed_pair_ranks(
    indptr: np.ndarray,
    indices: np.ndarray,
    person_labels: np.ndarray,
    item_labels: np.ndarray,
    key: np.uint64,
) -> np.ndarray:
    """Ranks of CSR pairs under the keyed pair hash ``w(item key, w(person key, w(key, 42)))``.

    The hash depends on labels only, so Spark's ``xxhash64(key, xxhash64(person),
    xxhash64(item))`` ranks pairs the same way; ties (probability ~2⁻⁶⁴) go to the smaller id.

    Examples
    --------
    >>> import numpy as np
    >>> keyed_pair_ranks(np.array([0, 2]), np.array([0, 1]), np.array(["p"]),
    ...                  np.array(["a", "b"]), np.uint64(5)).tolist() in ([0, 1], [1, 0])
    True
    """
    if indices.size == 0:
        return np.zeros(0, dtype=np.int64)
    with np.errstate(over="ignore"):  # interpreted, the hash wraps mod 2⁶⁴ as compiled code does
        key_seed = hash_word.interpreted(np.uint64(key), SEED)
        person_seeds = hash_word.interpreted(label_keys(person_labels), key_seed)
        ranks = _ranks_kernel.select(indices.size)  # small inputs: interpreted, no compilation
        return ranks(
            np.asarray(indptr, dtype=np.int64),
            np.asarray(indices, dtype=np.int32),
            np.ascontiguousarray(person_seeds, dtype=np.uint64),
            label_keys(item_labels),
        )
