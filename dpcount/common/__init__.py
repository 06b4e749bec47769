"""Infrastructure shared by every dpcount package (``dpcount``, ``matching``, ``mechanisms``).

Nothing here knows about graphs, files or privacy; everything here is public, so that the other
packages import only public names:

* :mod:`dpcount.common.rng` — the randomness policy (``RNGLike``, ``as_generator``, ``spawn``,
  ``draw_key``, ``seed_sequence``);
* :mod:`dpcount.common.jit` — compiled kernels, built by numba on their first call;
* :mod:`dpcount.common.hashing` — keyed XXH64 hashes of labels and of (person, item) pairs;
* :mod:`dpcount.common.lazy` — package attributes imported on first access;
* :mod:`dpcount.common.memory` — giving freed heap memory back to the system;
* :mod:`dpcount.common.tuning` — the row and batch thresholds of the reader and the graph
  assembly, in one object.

The package itself imports nothing, so importing one of these modules loads only that module.
"""

__all__: list[str] = []
