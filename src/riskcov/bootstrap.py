"""Participant-cluster bootstrap (SPEC §5): resample draws as weights, percentile CIs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

IntArray = np.ndarray[Any, np.dtype[np.int64]]
FloatArray = np.ndarray[Any, np.dtype[np.float64]]


def sample_chunks(participants: list[int], n_resamples: int, seed: int, chunk: int
                  ) -> Iterator[tuple[IntArray, IntArray, IntArray]]:
    """(replicate, participant_id, multiplicity) rows, `chunk` replicates at a time.

    Replicate b takes row b of RandomState(seed).randint(0, P, size=(B, P)); drawing the rows
    chunk by chunk from one RandomState gives the same numbers in a fraction of the memory.
    Replicate 0 (the point estimate, every participant once) leads the first chunk.

    >>> [r.tolist() for r in next(sample_chunks([7, 9], 0, 0, 2))]
    [[0, 0], [7, 9], [1, 1]]
    """
    ids = np.asarray(participants, dtype=np.int64)
    p = len(ids)
    point = (np.zeros(p, dtype=np.int64), ids, np.ones(p, dtype=np.int64))
    if n_resamples <= 0 or p == 0:
        yield point
        return
    rng = np.random.RandomState(seed)
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        draws = rng.randint(0, p, size=(rows, p))
        flat = draws + (np.arange(rows, dtype=np.int64) * p)[:, None]
        counts = np.bincount(flat.ravel(), minlength=rows * p)
        hit = np.flatnonzero(counts)
        rep, pid, mult = (hit // p + start + 1).astype(np.int64), ids[hit % p], counts[hit]
        if start == 0:
            rep, pid, mult = (np.concatenate([point[0], rep]), np.concatenate([point[1], pid]),
                              np.concatenate([point[2], mult]))
        yield rep, pid, mult.astype(np.int64)


def interval(point: float | None, replicates: FloatArray) -> tuple[list[float] | None, float]:
    """ci95 and drop rate of one metric: NaN replicates are dropped (SPEC §5).

    >>> interval(0.5, np.array([0.0, 1.0, np.nan, 2.0]))
    ([0.05, 1.95], 0.25)
    """
    b = len(replicates)
    kept = replicates[~np.isnan(replicates)]
    drop = 1.0 - (len(kept) / b) if b > 0 else 0.0
    if point is None:
        return None, 1.0
    if len(kept) < 2:
        return [float(point), float(point)], drop
    lo, hi = np.percentile(kept, [2.5, 97.5])
    return [float(lo), float(hi)], drop


def std_error(point: float | None, replicates: FloatArray) -> float | None:
    """Sample standard deviation (ddof = 1) of the kept replicates; 0 with fewer than 2.

    >>> std_error(0.5, np.array([1.0, 2.0, np.nan, 3.0]))
    1.0
    """
    if point is None:
        return None
    kept = replicates[~np.isnan(replicates)]
    return float(np.std(kept, ddof=1)) if len(kept) >= 2 else 0.0
