"""Seeds that depend on what a cell is, never on when or where it runs.

Every cell's seed comes from the experiment's one base seed and a *stable* hash (sha256 of a
canonical JSON, not Python's salted ``hash``) of the cell's identity, through numpy's
:class:`~numpy.random.SeedSequence`. So a cell's numbers are the same on one worker or 32, in
any order, and a sweep can be extended (more r, more repetitions) without changing the cells it
already has.

The cell seed is one integer (the ``seed`` column of ``cells.csv``). The reducer and k-means draw
from two independent streams of it: ``SeedSequence(seed).generate_state(2)`` gives their
``random_state`` integers (:func:`stream_seeds`).
"""

from __future__ import annotations

import hashlib

import numpy as np

from kmdr._hashing import canonical_json


def stable_words(*parts) -> tuple[int, ...]:
    """Four 32-bit words of a stable hash of ``parts``: a SeedSequence ``spawn_key``."""
    digest = hashlib.sha256(canonical_json(list(parts))).digest()
    return tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))


def _seed(base_seed: int, *parts) -> int:
    ss = np.random.SeedSequence(int(base_seed), spawn_key=stable_words(*parts))
    # 63 bits: fits a signed 64-bit CSV column.
    return int(ss.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def cell_seed(base_seed: int, dataset: str, reducer_id: str, r: int, repetition: int) -> int:
    """The seed of cell (dataset, reducer id, r, repetition) under ``base_seed``."""
    return _seed(base_seed, "cell", dataset, reducer_id, int(r), int(repetition))


def shared_seed(base_seed: int, dataset: str, shared_key: tuple, repetition: int) -> int:
    """The seed of the r-independent work ``shared_key`` on ``dataset`` in ``repetition``.

    Shared by every reducer and every r that share the key, so randomized shared work (an
    approximate SVD) is drawn once per repetition, exactly as if each cell had drawn it itself.
    """
    return _seed(base_seed, "shared", dataset, repr(tuple(shared_key)), int(repetition))


def stream_seeds(seed: int) -> tuple[int, int]:
    """The ``random_state`` integers of (the reducer, k-means) for a cell seeded ``seed``."""
    a, b = np.random.SeedSequence(int(seed)).generate_state(2, dtype=np.uint32)
    return int(a), int(b)


def shared_random_state(seed: int) -> int:
    """The ``random_state`` integer given to ``compute_shared`` for a shared seed."""
    return int(np.random.SeedSequence(int(seed)).generate_state(1, dtype=np.uint32)[0])
